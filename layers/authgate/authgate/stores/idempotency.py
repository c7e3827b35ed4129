"""IdempotencyTable: what a POST with an Idempotency-Key produced, for 24 h (the exactly-once record).

One item per (client, key): `id` = "charge-for#" + sha256(client#key) (the raw key is never
stored), `request_hash` (the fingerprint of the validated body), `status`, `charge_id`, `body`
(the response body exactly as first sent, so a replay is byte for byte the same), `tenant_id`
and `expiration` (epoch seconds; the table's TTL attribute).

The record is written by the same TransactWriteItems as the charge it names (stores.charges),
under the condition that no live record holds the key: the charge and its record exist together
or not at all, so a retry after a timeout, a concurrent duplicate and a replay all find the one
charge. It is read with the request's other reads (stores.batch), so a replay costs no call of
its own. DynamoDB's TTL deletion lags (and moto never deletes), so expiry is checked here too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from authgate.settings import get_settings

if TYPE_CHECKING:
    from authgate.stores.batch import BatchRead, Pending

ID_PREFIX = "charge-for#"
TTL_SECONDS = 24 * 3600


class IdempotencyRecord(NamedTuple):
    """The first response to a keyed POST: its status, the charge it created and its exact body."""

    digest: str
    request_hash: str
    tenant_id: str
    charge_id: str
    status: int
    # None for a record written before records kept the response (a deployment's first day):
    # the charge it names is then read and rendered instead.
    body: str | None
    expiration: int


def key(digest: str) -> dict[str, dict[str, str]]:
    return {"id": {"S": ID_PREFIX + digest}}


def to_item(record: IdempotencyRecord) -> dict[str, Any]:
    item = {**key(record.digest), "request_hash": {"S": record.request_hash},
            "tenant_id": {"S": record.tenant_id}, "charge_id": {"S": record.charge_id},
            "status": {"N": str(record.status)}, "expiration": {"N": str(record.expiration)}}
    if record.body is not None:
        item["body"] = {"S": record.body}
    return item


def from_item(item: dict[str, Any], now: int) -> IdempotencyRecord | None:
    """The record an item holds, or None when it has expired."""
    expiration = int(item.get("expiration", {}).get("N", "0"))
    if expiration < now:
        return None
    return IdempotencyRecord(digest=item["id"]["S"].removeprefix(ID_PREFIX),
                             request_hash=item["request_hash"]["S"], tenant_id=item["tenant_id"]["S"],
                             charge_id=item["charge_id"]["S"], status=int(item.get("status", {}).get("N", "201")),
                             body=item["body"]["S"] if "body" in item else None, expiration=expiration)


def put_member(record: IdempotencyRecord, now: int) -> dict[str, Any]:
    """The TransactWriteItems member that claims the key; fails while a live record holds it."""
    return {"Put": {
        "TableName": get_settings().tables.idempotency,
        "Item": to_item(record),
        # Free, or expired (TTL deletion lags, and moto never deletes).
        "ConditionExpression": "attribute_not_exists(id) OR expiration < :now",
        "ExpressionAttributeValues": {":now": {"N": str(now)}},
        # On failure the live record comes back with the cancellation: no read to learn it.
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
    }}


def prefetch(reads: BatchRead, digest: str) -> Pending:
    """Register the key's record in the request's batch read."""
    return reads.add(get_settings().tables.idempotency, key(digest))
