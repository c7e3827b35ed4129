"""The record of a keyed POST (draft-ietf-httpapi-idempotency-key-header): the first response, for 24 h.

The key is bound to the client that sent it and stored only as a digest (charges.idempotency);
the record holds the fingerprint of the validated body, the charge it created and the response
body exactly as first sent, so a replay is byte for byte the same. `FIELDS` is its one list of
attributes (stores.idempotency): `id` = "charge-for#" + digest, request_hash, tenant_id,
charge_id, status, expiration (epoch seconds, the table's TTL) and body.
"""

from __future__ import annotations

from typing import NamedTuple

from authgate import records
from authgate.records import Field

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


# The stored attributes; the key `id` is the digest under its prefix.
FIELDS = (
    Field("id", "S"),
    Field("request_hash", "S"),
    Field("tenant_id", "S"),
    Field("charge_id", "S"),
    # Records written before the status was kept answered 201.
    Field("status", "N", 201),
    Field("expiration", "N", 0),
    Field("body", "S", omit_none=True),
)


def item_id(digest: str) -> str:
    """The record's key: the digest of (client, key) under its prefix."""
    return ID_PREFIX + digest


def to_item(record: IdempotencyRecord) -> records.Item:
    """The record's DynamoDB item."""
    values = record._asdict()
    values["id"] = item_id(values.pop("digest"))
    return records.to_item(FIELDS, values)


def from_item(item: records.Item, now: int) -> IdempotencyRecord | None:
    """The record an item holds, or None when it has expired (TTL deletion lags, and moto never deletes)."""
    values = records.from_item(FIELDS, item)
    if values["expiration"] < now:
        return None
    values["digest"] = values.pop("id").removeprefix(ID_PREFIX)
    return IdempotencyRecord(**values)
