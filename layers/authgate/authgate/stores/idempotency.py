"""IdempotencyTable: what a POST with an Idempotency-Key produced, for 24 h (the exactly-once record).

The record and what a reuse means are authgate.billing.idempotency. One item per (client, key):
`id` = "charge-for#" + sha256(client#key) (the raw key is never stored).

The record is written by the same TransactWriteItems as the charge it names (stores.charges),
under the condition that no live record holds the key: the charge and its record exist together
or not at all, so a retry after a timeout, a concurrent duplicate and a replay all find the one
charge. It is read with the request's other reads (stores.batch), so a replay costs no call of
its own. DynamoDB's TTL deletion lags (and moto never deletes), so expiry is checked here too.
"""

from __future__ import annotations

from typing import Any

from authgate.billing.idempotency import IdempotencyRecord, item_id, to_item
from authgate.records import n, s
from authgate.stores.base import TableStore
from authgate.stores.batch import BatchRead, Pending


def key(digest: str) -> dict[str, dict[str, str]]:
    return {"id": s(item_id(digest))}


class IdempotencyStore(TableStore):
    """The records of keyed POSTs: claimed in the charge's transaction, read in the request's batch."""

    table_setting = "idempotency"

    def put_member(self, record: IdempotencyRecord, now: int) -> dict[str, Any]:
        """The TransactWriteItems member that claims the key; fails while a live record holds it."""
        return {"Put": {
            "TableName": self.table,
            "Item": to_item(record),
            # Free, or expired (TTL deletion lags, and moto never deletes).
            "ConditionExpression": "attribute_not_exists(id) OR expiration < :now",
            "ExpressionAttributeValues": {":now": n(now)},
            # On failure the live record comes back with the cancellation: no read to learn it.
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }}

    def prefetch(self, reads: BatchRead, digest: str) -> Pending:
        """Register the key's record in the request's batch read."""
        return reads.add(self.table, key(digest))
