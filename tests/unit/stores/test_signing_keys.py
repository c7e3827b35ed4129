"""stores.signing_keys: key records, the published set in JWKS order, no kid reused, state changes conditional."""

from __future__ import annotations

import pytest

from authgate.stores.exceptions import KeyStateConflict
from authgate.stores.signing_keys import (
    CURRENT,
    NEXT,
    PREVIOUS,
    RETIRED,
    KeyRecord,
    KeyStore,
    from_item,
    to_item,
)

NOW = 1_750_000_000


def key(kid: str, state: str, created: int) -> KeyRecord:
    return KeyRecord(kid=kid, state=state, alg="ES256", backend="local", public_jwk="{}", created_at=created,
                     activates_at=created + 600, secret_id=f"secret-{kid}")


def test_a_record_survives_the_round_trip_without_empty_attributes() -> None:
    record = key("k1", CURRENT, NOW)
    item = to_item(record)
    assert "retires_at" not in item and "kms_key_id" not in item
    assert from_item(item) == record


def test_published_keys_are_current_then_next_then_previous(aws: None) -> None:
    store = KeyStore()
    for record in (key("old", PREVIOUS, NOW - 200), key("gone", RETIRED, NOW - 300), key("cur", CURRENT, NOW - 100),
                   key("nxt", NEXT, NOW)):
        store.create(record)
    assert [r.kid for r in store.all()] == ["nxt", "cur", "old", "gone"]  # newest first
    assert [r.kid for r in store.published()] == ["cur", "nxt", "old"]
    assert store.get("gone") == key("gone", RETIRED, NOW - 300)
    assert store.get("missing") is None


def test_a_kid_is_never_reused(aws: None) -> None:
    store = KeyStore()
    store.create(key("k1", NEXT, NOW))
    with pytest.raises(KeyStateConflict):
        store.create(key("k1", CURRENT, NOW))


def test_a_transition_applies_only_from_the_state_it_was_planned_on(aws: None) -> None:
    store = KeyStore()
    nxt, cur = key("n", NEXT, NOW), key("c", CURRENT, NOW - 100)
    store.create(nxt)
    store.create(cur)
    store.transition([(nxt, nxt.with_state(CURRENT)), (cur, cur.with_state(PREVIOUS, retires_at=NOW + 900))])
    assert [(r.kid, r.state) for r in store.published()] == [("n", CURRENT), ("c", PREVIOUS)]
    assert store.get("c") is not None and store.get("c").retires_at == NOW + 900  # type: ignore[union-attr]
    # A second rotation planned on the old states loses: nothing changes.
    with pytest.raises(KeyStateConflict):
        store.transition([(nxt, nxt.with_state(CURRENT)), (cur, cur.with_state(RETIRED))])
    assert [(r.kid, r.state) for r in store.published()] == [("n", CURRENT), ("c", PREVIOUS)]
    store.transition([])
