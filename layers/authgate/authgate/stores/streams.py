"""StreamsTable: Shared Signals streams, their subjects and the SETs waiting for them (docs/shared-signals.md).

One partition per tenant (`tenant_id`), sorted by `item`:

- `stream#<client_id>`: a receiver's one stream (event_streams.stream), created under the condition
  that none exists (SSF 1.0 8.1.1.1: 409), changed and deleted under the condition that it is
  still the stream the request named (a stream deleted and created again meanwhile is another);
  the tenant's streams are one Query (what an event is sent on);
- `subject#<stream_id>#<key>`: a subject the receiver added or removed (SSF 1.0 8.1.3), under
  the SHA-256 of its canonical JSON (event_streams.subjects.key), with `state`;
- `set#<stream_id>#<jti>`: a signed SET waiting for a poll (RFC 8936), until acknowledged or
  expired (TTL `expires_at`); jti values are time-ordered, so a Query returns the oldest first;
- `held#<stream_id>#<jti>`: a push SET held while its stream is paused (SSF 1.0 8.1.2.1), sent
  when it is enabled again, dropped when it is disabled; expires too.

Keyed by stream_id, a deleted stream's subjects and SETs can never reach a new stream of the
same receiver; the delete removes them too (BatchWriteItem, 25 a call).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from authgate import records
from authgate.event_streams.errors import StreamExists, StreamNotFound, VerificationTooSoon
from authgate.event_streams.stream import Stream, from_item, to_item
from authgate.records import n, s
from authgate.stores.base import TableStore
from authgate.stores.batch import BatchRead, Pending

ADDED, REMOVED = "added", "removed"
WRITE_BATCH = 25  # BatchWriteItem's limit
# The kinds of a stream's own items, all deleted with it.
STREAM_ITEMS = ("subject", "set", "held")


def stream_key(tenant_id: str, client_id: str) -> dict[str, Any]:
    return {"tenant_id": s(tenant_id), "item": s(f"stream#{client_id}")}


def _key(tenant_id: str, kind: str, stream_id: str, name: str) -> dict[str, Any]:
    return {"tenant_id": s(tenant_id), "item": s(f"{kind}#{stream_id}#{name}")}


def _name(item: records.Item) -> str:
    """The last part of an item's sort key (a subject's key, a SET's jti)."""
    return records.string(item, "item").rsplit("#", 1)[-1]


class StreamStore(TableStore):
    table_setting = "streams"

    # ---- streams
    def prefetch(self, reads: BatchRead, tenant_id: str, client_id: str) -> Pending:
        """Register the receiver's stream in a batch read (the bearer guard's, SSF management requests)."""
        return reads.add(self.table, stream_key(tenant_id, client_id))

    @staticmethod
    def found(pending: Pending) -> Stream | None:
        item = pending.item
        return from_item(item) if item else None

    def get(self, tenant_id: str, client_id: str) -> Stream | None:
        item = self.find(stream_key(tenant_id, client_id))
        return from_item(item) if item else None

    def create(self, stream: Stream) -> None:
        """Store a new stream; StreamExists when the receiver has one (one conditional PutItem)."""
        self.upsert({**stream_key(stream.tenant_id, stream.client_id), **to_item(stream)}, "create",
                    condition="attribute_not_exists(tenant_id)", refused=StreamExists)

    def save(self, stream: Stream) -> None:
        """Write a changed stream; StreamNotFound when it was deleted (or replaced by another) meanwhile."""
        self.upsert({**stream_key(stream.tenant_id, stream.client_id), **to_item(stream)}, "save",
                    condition="stream_id = :stream", values={":stream": s(stream.stream_id)},
                    refused=StreamNotFound)

    def delete(self, stream: Stream) -> None:
        """Delete the stream and every item of its own (subjects, waiting SETs)."""
        self.destroy(stream_key(stream.tenant_id, stream.client_id), condition="stream_id = :stream",
                     values={":stream": s(stream.stream_id)}, refused=StreamNotFound)
        for kind in STREAM_ITEMS:
            self._forget(stream.tenant_id, [records.string(item, "item")
                                            for item in self._items(stream.tenant_id, f"{kind}#{stream.stream_id}#")])

    def of_tenant(self, tenant_id: str) -> list[Stream]:
        """The tenant's streams (one Query a page; a tenant has one per receiver)."""
        return [from_item(item) for item in self._items(tenant_id, "stream#")]

    def verified(self, stream: Stream, now: int, interval: int) -> None:
        """Record a verification request at `now`: VerificationTooSoon within `interval` s of the last (SSF 1.0
        8.1.4.2), StreamNotFound when the stream is gone (one conditional UpdateItem)."""
        try:
            with self.faults("verified", refused=lambda: VerificationTooSoon(0)):
                self.db.update_item(
                    TableName=self.table, Key=stream_key(stream.tenant_id, stream.client_id),
                    UpdateExpression="SET verified_at = :now",
                    ConditionExpression="stream_id = :stream AND (attribute_not_exists(verified_at) "
                                        "OR verified_at <= :since)",
                    ExpressionAttributeValues={":now": n(now), ":stream": s(stream.stream_id),
                                               ":since": n(now - interval)})
        except VerificationTooSoon:
            current = self.get(stream.tenant_id, stream.client_id)
            if current is None or current.stream_id != stream.stream_id:
                raise StreamNotFound() from None
            raise VerificationTooSoon(max(1, current.verified_at + interval - now)) from None

    # ---- subjects (SSF 1.0 8.1.3)
    def mark_subject(self, stream: Stream, subject_key: str, subject: dict[str, Any], state: str, now: int) -> None:
        """Record that the receiver added or removed a subject (the latest word wins)."""
        item = {**_key(stream.tenant_id, "subject", stream.stream_id, subject_key),
                "subject": s(json.dumps(subject, separators=(",", ":"))), "state": s(state), "changed_at": n(now)}
        self.upsert(item, "mark_subject")

    def removed(self, tenant_id: str, wanted: Sequence[tuple[str, str]]) -> set[tuple[str, str]]:
        """Which (stream_id, subject key) pairs a receiver removed (BatchGetItem, 100 keys a call)."""
        out: set[tuple[str, str]] = set()
        unique = list(dict.fromkeys(wanted))
        for start in range(0, len(unique), 100):
            reads = BatchRead(self.db, "streams.subjects")
            pending = [(pair, reads.add(self.table, _key(tenant_id, "subject", pair[0], pair[1])))
                       for pair in unique[start:start + 100]]
            reads.run()
            out.update(pair for pair, got in pending
                       if got.item is not None and records.string(got.item, "state") == REMOVED)
        return out

    # ---- SETs waiting for a poll (RFC 8936) or for a paused stream (SSF 1.0 8.1.2.1)
    def queue_set(self, stream: Stream, jti: str, token: str, expires_at: int) -> None:
        """Keep a signed SET until the receiver acknowledges it (a retried delivery writes the same item)."""
        self.upsert({**_key(stream.tenant_id, "set", stream.stream_id, jti), "set": s(token),
                     "expires_at": n(expires_at)}, "queue_set")

    def queued(self, stream: Stream, limit: int, now: int) -> tuple[list[tuple[str, str]], bool]:
        """Up to `limit` waiting SETs, oldest first, as (jti, SET), and whether more wait (a Query, a page more while
        expired items the TTL has not removed yet fill one)."""
        found: list[tuple[str, str]] = []
        kwargs: dict[str, Any] = {
            "TableName": self.table, "KeyConditionExpression": "tenant_id = :tenant AND begins_with(item, :prefix)",
            "ConsistentRead": True, "Limit": limit + 1,
            "ExpressionAttributeValues": {":tenant": s(stream.tenant_id), ":prefix": s(f"set#{stream.stream_id}#")}}
        while len(found) <= limit:
            with self.faults("queued"):
                page = self.db.query(**kwargs)
            found.extend((_name(item), records.string(item, "set")) for item in page.get("Items", [])
                         if records.number(item, "expires_at") > now)
            if "LastEvaluatedKey" not in page:
                break
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return found[:limit], len(found) > limit

    def acknowledge(self, stream: Stream, jtis: Iterable[str]) -> None:
        """Forget the SETs the receiver acknowledged or rejected (RFC 8936 2.4); unknown ones are ignored."""
        self._forget(stream.tenant_id, [f"set#{stream.stream_id}#{jti}" for jti in dict.fromkeys(jtis)])

    def hold(self, stream: Stream, jti: str, message: dict[str, Any], expires_at: int) -> None:
        """Keep a push SET's message while the stream is paused."""
        self.upsert({**_key(stream.tenant_id, "held", stream.stream_id, jti),
                     "message": s(json.dumps(message, separators=(",", ":"))), "expires_at": n(expires_at)}, "hold")

    def held(self, stream: Stream, now: int) -> list[tuple[str, dict[str, Any]]]:
        """The messages held for the stream, oldest first, with their items' sort keys (to forget once queued)."""
        return [(records.string(item, "item"), json.loads(records.string(item, "message")))
                for item in self._items(stream.tenant_id, f"held#{stream.stream_id}#")
                if records.number(item, "expires_at") > now]

    def forget_held(self, stream: Stream, items: Sequence[str]) -> None:
        self._forget(stream.tenant_id, items)

    def drop_held(self, stream: Stream) -> None:
        """Forget what a disabled stream held (SSF 1.0 8.1.2.1: nothing is held for later)."""
        self._forget(stream.tenant_id, [records.string(item, "item")
                                        for item in self._items(stream.tenant_id, f"held#{stream.stream_id}#")])

    # ---- the verbs of the above
    def _items(self, tenant_id: str, prefix: str) -> Iterator[records.Item]:
        kwargs: dict[str, Any] = {
            "TableName": self.table, "KeyConditionExpression": "tenant_id = :tenant AND begins_with(item, :prefix)",
            "ConsistentRead": True, "ExpressionAttributeValues": {":tenant": s(tenant_id), ":prefix": s(prefix)}}
        while True:
            with self.faults("query"):
                page = self.db.query(**kwargs)
            yield from page.get("Items", [])
            if "LastEvaluatedKey" not in page:
                return
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def _forget(self, tenant_id: str, items: Sequence[str]) -> None:
        for start in range(0, len(items), WRITE_BATCH):
            request = {self.table: [{"DeleteRequest": {"Key": {"tenant_id": s(tenant_id), "item": s(item)}}}
                                    for item in items[start:start + WRITE_BATCH]]}
            for _attempt in range(3):
                with self.faults("forget"):
                    answer = self.db.batch_write_item(RequestItems=request)
                request = answer.get("UnprocessedItems") or {}
                if not request:
                    break
