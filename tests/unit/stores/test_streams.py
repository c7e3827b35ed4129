"""StreamsTable (stores.streams): a receiver's one stream, its subjects and its waiting SETs, against moto."""

from __future__ import annotations

from typing import Any

import boto3
import pytest

from authgate.event_streams.errors import StreamExists, StreamNotFound, VerificationTooSoon
from authgate.event_streams.stream import PUSH, Stream
from authgate.stores.streams import ADDED, REMOVED, StreamStore

pytestmark = pytest.mark.usefixtures("aws")

STREAM = Stream(tenant_id="demo", client_id="rp", stream_id="s1", iss="https://auth.example.com", method=PUSH,
                endpoint_url="https://rp.example/events", authorization_header="Bearer x",
                events_requested=("urn:a",), created_at=100)


def items() -> list[dict[str, Any]]:
    return boto3.client("dynamodb").scan(TableName="StreamsTable")["Items"]


def test_a_stream_item_attribute_by_attribute() -> None:
    StreamStore().create(STREAM)
    assert items() == [{"tenant_id": {"S": "demo"}, "item": {"S": "stream#rp"}, "client_id": {"S": "rp"},
                        "stream_id": {"S": "s1"}, "iss": {"S": "https://auth.example.com"}, "method": {"S": PUSH},
                        "endpoint_url": {"S": "https://rp.example/events"}, "authorization_header": {"S": "Bearer x"},
                        "events_requested": {"S": '["urn:a"]'}, "status": {"S": "enabled"},
                        "created_at": {"N": "100"}}]
    assert StreamStore().get("demo", "rp") == STREAM


def test_one_stream_per_receiver_and_no_write_to_a_stream_deleted_meanwhile() -> None:
    store = StreamStore()
    store.create(STREAM)
    with pytest.raises(StreamExists):
        store.create(STREAM._replace(stream_id="s2"))
    with pytest.raises(StreamNotFound):
        store.save(STREAM._replace(stream_id="s2", description="not this one"))
    assert store.of_tenant("demo") == [STREAM] and store.of_tenant("acme") == []


def test_deleting_a_stream_deletes_its_subjects_and_waiting_sets() -> None:
    store = StreamStore()
    store.create(STREAM)
    store.mark_subject(STREAM, "k1", {"format": "opaque", "id": "1"}, REMOVED, 5)
    store.queue_set(STREAM, "j1", "a.b.c", 10**10)
    store.hold(STREAM, "j2", {"kind": "x"}, 10**10)
    store.delete(STREAM)
    assert items() == []


def test_removed_subjects_are_told_apart_from_added_ones() -> None:
    store = StreamStore()
    store.mark_subject(STREAM, "k1", {"format": "opaque", "id": "1"}, REMOVED, 5)
    store.mark_subject(STREAM, "k2", {"format": "opaque", "id": "2"}, ADDED, 5)
    assert store.removed("demo", [("s1", "k1"), ("s1", "k2"), ("s1", "k3"), ("s9", "k1")]) == {("s1", "k1")}


def test_waiting_sets_are_answered_oldest_first_and_forgotten_once_acknowledged() -> None:
    store = StreamStore()
    for jti in ("0003", "0001", "0002"):
        store.queue_set(STREAM, jti, f"set-{jti}", 500)
    store.queue_set(STREAM, "0000", "expired", 50)
    assert store.queued(STREAM, 2, 100) == ([("0001", "set-0001"), ("0002", "set-0002")], True)
    store.acknowledge(STREAM, ["0001", "0002", "unknown"])
    assert store.queued(STREAM, 2, 100) == ([("0003", "set-0003")], False)


def test_held_messages_are_released_in_order() -> None:
    store = StreamStore()
    store.hold(STREAM, "02", {"n": 2}, 500)
    store.hold(STREAM, "01", {"n": 1}, 500)
    held = store.held(STREAM, 100)
    assert [message for _, message in held] == [{"n": 1}, {"n": 2}]
    store.forget_held(STREAM, [item for item, _ in held])
    assert store.held(STREAM, 100) == []


def test_verification_is_recorded_at_most_once_per_interval() -> None:
    store = StreamStore()
    store.create(STREAM)
    store.verified(STREAM, 1000, 10)
    with pytest.raises(VerificationTooSoon) as soon:
        store.verified(STREAM, 1004, 10)
    assert soon.value.retry_after == 6
    store.verified(STREAM, 1010, 10)
    with pytest.raises(StreamNotFound):
        store.verified(STREAM._replace(stream_id="gone"), 2000, 10)
