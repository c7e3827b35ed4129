"""stores.signing_keys: key records, the published set in JWKS order and its one item, no kid reused, state
changes conditional on the state and on the set they were planned on."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

from authgate.stores.batch import BatchRead
from authgate.stores.exceptions import KeyStateConflict
from authgate.stores.signing_keys import (
    CURRENT,
    NEXT,
    PREVIOUS,
    PUBLISHED,
    RETIRED,
    RING_KID,
    KeyRecord,
    KeyRing,
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


def ring_item() -> dict[str, Any] | None:
    item: dict[str, Any] | None = boto3.client("dynamodb").get_item(
        TableName="KeysTable", Key={"kid": {"S": RING_KID}}, ConsistentRead=True).get("Item")
    return item


def test_the_published_keys_item_follows_every_write(aws: None) -> None:
    store = KeyStore()
    cur, nxt = key("cur", CURRENT, NOW - 100), key("nxt", NEXT, NOW)
    store.create(cur)
    store.create(nxt)
    ring = store.ring()
    assert (ring.keys, ring.version, ring.stored, ring.current()) == ((nxt, cur), 2, True, cur)
    store.transition([(cur, cur.with_state(RETIRED)), (nxt, nxt.with_state(CURRENT))])
    promoted = nxt.with_state(CURRENT)
    # The item as stored: the published records by field name, compact JSON, and the set's version.
    assert ring_item() == {"kid": {"S": RING_KID}, "version": {"N": "3"},
                           "keys": {"S": json.dumps([promoted._asdict()], separators=(",", ":"))}}
    assert store.published() == [promoted] == [r for r in store.all() if r.state in PUBLISHED]
    reads = BatchRead()
    pending = store.prefetch(reads)
    reads.run()
    assert store.found(pending) == store.ring() == KeyRing((promoted,), 3)


def test_a_write_planned_on_an_older_set_changes_nothing(aws: None) -> None:
    store = KeyStore()
    store.create(key("cur", CURRENT, NOW - 100))
    planned_on = store.ring()
    store.create(key("a", NEXT, NOW), planned_on)
    # Another rotation planned on the same set: its key is not written either (one transaction).
    with pytest.raises(KeyStateConflict):
        store.create(key("b", NEXT, NOW + 1), planned_on)
    assert store.get("b") is None
    assert [r.kid for r in store.published()] == ["cur", "a"]


def test_a_table_without_the_item_is_read_by_scan_and_the_next_write_stores_it(aws: None) -> None:
    store = KeyStore()
    ddb = boto3.client("dynamodb")
    for record in (key("old", PREVIOUS, NOW - 200), key("cur", CURRENT, NOW - 100), key("gone", RETIRED, NOW - 300)):
        ddb.put_item(TableName="KeysTable", Item=to_item(record))  # as written before the item existed
    legacy = store.ring()
    assert ([r.kid for r in legacy.published()], legacy.stored) == (["cur", "old"], False)
    assert store.transition([], legacy).stored  # no change, but the item is written
    assert [r.kid for r in store.ring().published()] == ["cur", "old"]
    assert ring_item() is not None and store.ring().version == 1
