"""stores.refresh_tokens: families, single-use rotation with reuse detection (RFC 9700 4.14.2), revocation."""

from __future__ import annotations

import threading

import boto3
import pytest

from authgate.clock import ManualClock
from authgate.single_use.errors import RotationFailed
from authgate.single_use.refresh_tokens import hash_token
from authgate.stores.refresh_tokens import RefreshTokenStore, family_key

NOW = 1_750_000_000


def start(store: RefreshTokenStore, family: str = "g1", **kw: object) -> str:
    args: dict[str, object] = {"family_id": family, "client_id": "demo-web", "tenant_id": "demo",
                               "subject": "alice", "scope": "charges:read", "now": NOW, "ttl": 3600}
    return store.start_family(**{**args, **kw})  # type: ignore[arg-type]


def test_only_the_hash_is_stored_with_its_family_head(aws: None) -> None:
    store = RefreshTokenStore()
    token = start(store)
    items = {i["token_hash"]["S"]: i for i in boto3.client("dynamodb").scan(TableName="RefreshTokensTable")["Items"]}
    assert set(items) == {hash_token(token), family_key("g1")}
    assert token not in str(items)
    assert items[family_key("g1")]["state"] == {"S": "active"}
    record = store.get(token)
    assert record is not None
    assert (record.family_id, record.client_id, record.tenant_id, record.subject, record.scope, record.state) == (
        "g1", "demo-web", "demo", "alice", "charges:read", "active")
    assert (record.issued_at, record.expires_at, record.dpop_jkt, record.rotated_to) == (NOW, NOW + 3600, None, None)


def test_unknown_empty_oversized_tokens_and_family_heads_are_not_tokens(aws: None) -> None:
    store = RefreshTokenStore()
    start(store)
    assert store.get("nope") is None
    assert store.get("") is None
    assert store.get("x" * 513) is None
    # A family head's key is not a token's hash: presenting "family#g1" finds nothing either.
    assert store.get(family_key("g1")) is None


def test_rotation_keeps_family_scope_expiry_and_key_binding(aws: None) -> None:
    store = RefreshTokenStore()
    token = start(store, dpop_jkt="jkt-of-the-first-proof")
    old = store.get(token)
    assert old is not None
    successor = store.rotate(old, NOW + 10)
    new = store.get(successor)
    assert new is not None and successor != token
    assert (new.family_id, new.scope, new.expires_at, new.issued_at, new.dpop_jkt, new.state) == (
        "g1", "charges:read", NOW + 3600, NOW + 10, "jkt-of-the-first-proof", "active")
    presented = store.get(token)
    assert presented is not None
    assert (presented.state, presented.rotated_to) == ("rotated", hash_token(successor))


def test_a_rotated_token_presented_again_is_reuse(aws: None) -> None:
    store = RefreshTokenStore()
    old = store.get(start(store))
    assert old is not None
    store.rotate(old, NOW + 1)
    with pytest.raises(RotationFailed) as info:
        store.rotate(old, NOW + 2)
    assert (info.value.reused, info.value.family_revoked) == (True, False)


def test_a_revoked_family_rotates_no_more(aws: None) -> None:
    store = RefreshTokenStore()
    old = store.get(start(store))
    assert old is not None
    assert store.family_active("g1")
    store.revoke_family("g1", NOW + 3600)
    assert not store.family_active("g1")
    with pytest.raises(RotationFailed) as info:
        store.rotate(old, NOW + 1)
    assert info.value.family_revoked is True
    assert store.get(start(store, family="g2")) is not None  # another family is untouched
    assert store.family_active("g2")


def test_a_family_revoked_before_its_first_token_stays_revoked(aws: None) -> None:
    # A replayed code revokes the grant while the winning exchange is still writing its family.
    store = RefreshTokenStore()
    store.revoke_family("g1", NOW + 3600)
    token = start(store)
    assert not store.family_active("g1")
    record = store.get(token)
    assert record is not None
    with pytest.raises(RotationFailed):
        store.rotate(record, NOW + 1)


def test_of_concurrent_rotations_of_one_token_exactly_one_wins(aws: None) -> None:
    store = RefreshTokenStore()
    old = store.get(start(store))
    assert old is not None
    won: list[str] = []
    lost: list[RotationFailed] = []

    def rotate() -> None:
        try:
            won.append(store.rotate(old, NOW + 1))
        except RotationFailed as exc:
            lost.append(exc)

    threads = [threading.Thread(target=rotate) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert (len(won), len(lost)) == (1, 7)
    assert all(exc.reused for exc in lost)


def test_the_default_lifetime_is_the_deployment_setting(aws: None, clock: ManualClock,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_REFRESH_TOKEN_TTL", "7200")
    caches.reset()
    store = RefreshTokenStore()
    token = store.start_family(family_id="g1", client_id="c", tenant_id="t", subject="s", scope="", now=NOW)
    record = store.get(token)
    assert record is not None and record.expires_at == NOW + 7200
