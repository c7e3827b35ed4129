"""CodeStore: hashed storage, single use by one conditional write, expiry checked in code."""

from __future__ import annotations

import hashlib
import threading

import boto3
import pytest

from authgate.single_use.errors import CodeAlreadyUsed, CodeExpired, CodeNotFound
from authgate.stores.codes import CodeStore


def new_code(store: CodeStore, redirect_uri: str | None = "http://127.0.0.1:8765/callback") -> str:
    return store.create(client_id="demo-web", tenant_id="demo", redirect_uri=redirect_uri,
                        code_challenge="E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                        code_challenge_method="S256", scope="charges:read", subject="alice")


def test_only_the_hash_is_stored(aws):
    store = CodeStore()
    code = new_code(store)
    items = boto3.client("dynamodb").scan(TableName="CodesTable")["Items"]
    assert len(items) == 1
    assert items[0]["code_hash"]["S"] == hashlib.sha256(code.encode()).hexdigest()
    assert code not in str(items)
    assert len(code) == 43  # token_urlsafe(32): 256 bits


def test_consume_returns_the_binding_then_reuse_carries_the_record(aws, clock):
    store = CodeStore()
    code = new_code(store)
    record = store.consume(code)
    assert (record.client_id, record.tenant_id, record.redirect_uri, record.scope, record.subject) == (
        "demo-web", "demo", "http://127.0.0.1:8765/callback", "charges:read", "alice")
    assert record.code_challenge_method == "S256"
    assert record.state == "consumed"
    assert record.expires_at == record.issued_at + 60
    with pytest.raises(CodeAlreadyUsed) as info:
        store.consume(code)
    assert info.value.record is not None
    assert info.value.record.grant_id == record.grant_id


def test_each_code_has_its_own_grant_id(aws):
    store = CodeStore()
    a, b = store.consume(new_code(store)), store.consume(new_code(store))
    assert a.grant_id != b.grant_id


def test_redirect_uri_absent_when_not_sent(aws):
    store = CodeStore()
    assert store.consume(new_code(store, redirect_uri=None)).redirect_uri is None


def test_expired_code_is_refused_even_though_the_item_remains(aws, clock):
    store = CodeStore()
    code = new_code(store)
    clock.advance(60)
    with pytest.raises(CodeExpired) as info:
        store.consume(code)
    assert info.value.record.client_id == "demo-web"


def test_unknown_code(aws):
    with pytest.raises(CodeNotFound) as info:
        CodeStore().consume("not-a-code")
    assert info.value.record is None


@pytest.mark.slow
def test_32_concurrent_consumes_have_exactly_one_winner(aws):
    store = CodeStore()
    for _ in range(5):
        code = new_code(store)
        outcomes: list[str] = []
        barrier = threading.Barrier(32)

        def race(code: str = code, barrier: threading.Barrier = barrier, outcomes: list[str] = outcomes) -> None:
            barrier.wait()
            try:
                store.consume(code)
                outcomes.append("won")
            except CodeAlreadyUsed:
                outcomes.append("reused")

        threads = [threading.Thread(target=race) for _ in range(32)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcomes) == ["reused"] * 31 + ["won"]


def test_throttling_is_service_unavailable(aws):
    from botocore.stub import Stubber

    from authgate.failures import api_error
    from authgate.stores.exceptions import StorageUnavailable

    client = boto3.client("dynamodb")
    stub = Stubber(client)
    stub.add_client_error("update_item", "ProvisionedThroughputExceededException", http_status_code=400)
    with stub, pytest.raises(StorageUnavailable) as info:
        CodeStore(dynamodb=client).consume("whatever")
    error = api_error(info.value)
    assert error is not None and (error.code, error.status, error.oauth_error) == (
        "service_unavailable", 503, "temporarily_unavailable")
    assert error.headers == {"Retry-After": "1"}
