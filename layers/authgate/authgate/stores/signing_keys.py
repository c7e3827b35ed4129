"""KeysTable: signing-key metadata and each key's public JWK (RFC 7517 section 4).

One item per key: `kid`, `state` (next | current | previous | retired), `alg`, `backend`
(local | kms), `public_jwk` (JSON string), `secret_id` or `kms_key_id`, `created_at`,
`activates_at` (earliest time it may sign), `retires_at` (earliest time it may leave the
JWKS), `expires_at` (TTL, set when retired). Private key material is never stored here.
This module must not import jwt or cryptography: the JWKS path reads it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from authgate import records
from authgate.records import Field, s
from authgate.stores.base import TableStore
from authgate.stores.exceptions import KeyStateConflict

NEXT, CURRENT, PREVIOUS, RETIRED = "next", "current", "previous", "retired"
PUBLISHED = (CURRENT, NEXT, PREVIOUS)


class KeyRecord(NamedTuple):
    kid: str
    state: str
    alg: str
    backend: str
    public_jwk: str
    created_at: int
    activates_at: int
    retires_at: int = 0
    expires_at: int = 0
    secret_id: str = ""
    kms_key_id: str = ""

    def with_state(self, state: str, **changes: Any) -> KeyRecord:
        return self._replace(state=state, **changes)


# A key's attributes, in `KeyRecord`'s order; each is written only when set.
FIELDS = (
    Field("kid", "S", "", omit_empty=True),
    Field("state", "S", "", omit_empty=True),
    Field("alg", "S", "", omit_empty=True),
    Field("backend", "S", "", omit_empty=True),
    Field("public_jwk", "S", "", omit_empty=True),
    Field("created_at", "N", 0, omit_empty=True),
    Field("activates_at", "N", 0, omit_empty=True),
    Field("retires_at", "N", 0, omit_empty=True),
    Field("expires_at", "N", 0, omit_empty=True),
    Field("secret_id", "S", "", omit_empty=True),
    Field("kms_key_id", "S", "", omit_empty=True),
)


def to_item(record: KeyRecord) -> records.Item:
    return records.to_item(FIELDS, record._asdict())


def from_item(item: records.Item) -> KeyRecord:
    return KeyRecord(**records.from_item(FIELDS, item))


class KeyStore(TableStore):
    table_setting = "keys"

    def all(self) -> list[KeyRecord]:
        """Every key record, newest first. A Scan: the table holds a handful of keys."""
        return sorted((from_item(i) for i in self.scan()), key=lambda r: (r.created_at, r.kid), reverse=True)

    def published(self) -> list[KeyRecord]:
        """Keys in the JWKS (next, current, previous): current first, then next, then previous."""
        order = {state: i for i, state in enumerate(PUBLISHED)}
        keys = [r for r in self.all() if r.state in order]
        return sorted(keys, key=lambda r: order[r.state])

    def get(self, kid: str) -> KeyRecord | None:
        item = self.find({"kid": s(kid)})
        return from_item(item) if item else None

    def create(self, record: KeyRecord) -> None:
        """Store a new key; a kid is never reused."""
        self.upsert(to_item(record), "create", condition="attribute_not_exists(kid)",
                    refused=lambda: KeyStateConflict(f"key {record.kid} already exists"))

    def transition(self, changes: Iterable[tuple[KeyRecord, KeyRecord]]) -> None:
        """Apply (old, new) state changes in one transaction, each conditional on the old state.

        Two rotations running at once cannot both promote: the loser's transaction fails.
        """
        from botocore.exceptions import ClientError

        items = [{"Put": {"TableName": self.table, "Item": to_item(new),
                          "ConditionExpression": "#s = :old",
                          "ExpressionAttributeNames": {"#s": "state"},
                          "ExpressionAttributeValues": {":old": s(old.state)}}}
                 for old, new in changes]
        if not items:
            return
        try:
            with self.faults("transition"):
                self.db.transact_write_items(TransactItems=items)
        except ClientError as exc:
            if exc.response["Error"]["Code"] == "TransactionCanceledException":
                raise KeyStateConflict("a concurrent rotation changed the keys first") from exc
            raise
