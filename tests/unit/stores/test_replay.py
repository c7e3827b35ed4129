"""ReplayGuard: one conditional PutItem per JWT id; expiry judged in code; one winner under threads."""

from __future__ import annotations

import hashlib
import threading

import boto3
import pytest

from authgate.clock import seconds as now
from authgate.single_use.errors import Replayed
from authgate.stores.exceptions import StorageUnavailable
from authgate.stores.replay import ReplayGuard, assertion_key, dpop_key, saml_assertion_key


def test_second_use_within_the_window_is_replayed(aws, clock):
    guard = ReplayGuard()
    key = dpop_key("thumb", "jti-1")
    guard.use(key, now() + 300)
    with pytest.raises(Replayed):
        guard.use(key, now() + 300)


def test_only_a_hash_of_the_id_and_its_expiry_are_stored(aws, clock):
    ReplayGuard().use(assertion_key("demo-fapi", "secret-looking-jti"), now() + 60)
    items = boto3.client("dynamodb").scan(TableName="ReplayTable")["Items"]
    assert items == [{"id": {"S": hashlib.sha256(b"assertion#demo-fapi#secret-looking-jti").hexdigest()},
                      "expires_at": {"N": str(now() + 60)}}]


def test_namespaces_keep_proofs_and_assertions_apart(aws, clock):
    guard = ReplayGuard()
    guard.use(dpop_key("a", "x"), now() + 60)
    guard.use(assertion_key("a", "x"), now() + 60)
    guard.use(saml_assertion_key("a", "x"), now() + 60)
    guard.use(dpop_key("b", "x"), now() + 60)  # another key's proof may reuse a jti


def test_an_expired_id_may_be_used_again_though_the_item_remains(aws, clock):
    guard = ReplayGuard()
    key = dpop_key("thumb", "jti-2")
    guard.use(key, now() + 10)
    clock.advance(9)
    with pytest.raises(Replayed):
        guard.use(key, now() + 10)
    clock.advance(1)
    guard.use(key, now() + 10)
    with pytest.raises(Replayed):
        guard.use(key, now() + 10)


@pytest.mark.slow
def test_32_threads_one_id_exactly_one_winner(aws, clock):
    guard = ReplayGuard()
    for n in range(5):
        outcomes: list[str] = []
        barrier = threading.Barrier(32)

        def race(n: int = n, barrier: threading.Barrier = barrier, outcomes: list[str] = outcomes) -> None:
            barrier.wait()
            try:
                guard.use(dpop_key("thumb", f"race-{n}"), now() + 60)
                outcomes.append("won")
            except Replayed:
                outcomes.append("replayed")

        threads = [threading.Thread(target=race) for _ in range(32)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcomes) == ["replayed"] * 31 + ["won"]


def test_throttling_is_storage_unavailable_not_replayed(aws, clock):
    from botocore.stub import Stubber

    client = boto3.client("dynamodb")
    stub = Stubber(client)
    stub.add_client_error("put_item", "ThrottlingException", http_status_code=400)
    with stub, pytest.raises(StorageUnavailable):
        ReplayGuard(dynamodb=client).use(dpop_key("t", "j"), now() + 60)
