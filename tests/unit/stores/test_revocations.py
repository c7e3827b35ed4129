"""stores.revocations (RFC 7009 2): revoked jtis and grants, until their expiry, checked in one batch read."""

from __future__ import annotations

import boto3

from authgate.stores.revocations import RevocationStore

NOW = 1_750_000_000


def test_a_token_is_revoked_by_its_jti_or_by_its_grant(aws: None) -> None:
    store = RevocationStore()
    store.revoke_jti("j1", NOW + 60)
    store.revoke_grant("g1", NOW + 60)
    assert store.is_revoked("j1", None, NOW)
    assert store.is_revoked("other", "g1", NOW)
    assert not store.is_revoked("other", "g2", NOW)
    assert not store.is_revoked("other", None, NOW)


def test_a_revocation_ends_at_its_expiry_though_the_item_remains(aws: None) -> None:
    store = RevocationStore()
    store.revoke_jti("j1", NOW + 60)
    assert store.is_revoked("j1", None, NOW + 59)
    assert not store.is_revoked("j1", None, NOW + 60)  # TTL deletion is lazy: expiry is judged in code
    assert len(boto3.client("dynamodb").scan(TableName="RevocationsTable")["Items"]) == 1


def test_revoking_again_never_shortens_a_revocation(aws: None) -> None:
    store = RevocationStore()
    store.revoke_grant("g1", NOW + 3600)
    store.revoke_grant("g1", NOW + 60)
    assert store.is_revoked("j", "g1", NOW + 600)
    store.revoke_grant("g1", NOW + 7200)
    assert store.is_revoked("j", "g1", NOW + 5000)
