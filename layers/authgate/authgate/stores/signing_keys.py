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


_NUMBERS = ("created_at", "activates_at", "retires_at", "expires_at")
_STRINGS = ("kid", "state", "alg", "backend", "public_jwk", "secret_id", "kms_key_id")


def to_item(record: KeyRecord) -> dict[str, Any]:
    item: dict[str, Any] = {name: {"S": getattr(record, name)} for name in _STRINGS if getattr(record, name)}
    item.update({name: {"N": str(getattr(record, name))} for name in _NUMBERS if getattr(record, name)})
    return item


def from_item(item: dict[str, Any]) -> KeyRecord:
    values: dict[str, Any] = {name: item[name]["S"] for name in _STRINGS if name in item}
    values.update({name: int(item[name]["N"]) for name in _NUMBERS if name in item})
    return KeyRecord(**values)


class KeyStore(TableStore):
    table_setting = "keys"

    def all(self) -> list[KeyRecord]:
        """Every key record, newest first. A Scan: the table holds a handful of keys."""
        items: list[dict[str, Any]] = []
        kwargs: dict[str, Any] = {"TableName": self.table, "ConsistentRead": True}
        while True:
            with self.faults("scan"):
                page = self.db.scan(**kwargs)
            items.extend(page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                break
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return sorted((from_item(i) for i in items), key=lambda r: (r.created_at, r.kid), reverse=True)

    def published(self) -> list[KeyRecord]:
        """Keys in the JWKS (next, current, previous): current first, then next, then previous."""
        order = {state: i for i, state in enumerate(PUBLISHED)}
        keys = [r for r in self.all() if r.state in order]
        return sorted(keys, key=lambda r: order[r.state])

    def get(self, kid: str) -> KeyRecord | None:
        with self.faults("get"):
            item = self.db.get_item(TableName=self.table, Key={"kid": {"S": kid}}, ConsistentRead=True).get("Item")
        return from_item(item) if item else None

    def create(self, record: KeyRecord) -> None:
        """Store a new key; a kid is never reused."""
        with self.faults("create", refused=lambda: KeyStateConflict(f"key {record.kid} already exists")):
            self.db.put_item(TableName=self.table, Item=to_item(record),
                             ConditionExpression="attribute_not_exists(kid)")

    def transition(self, changes: Iterable[tuple[KeyRecord, KeyRecord]]) -> None:
        """Apply (old, new) state changes in one transaction, each conditional on the old state.

        Two rotations running at once cannot both promote: the loser's transaction fails.
        """
        from botocore.exceptions import ClientError

        items = [{"Put": {"TableName": self.table, "Item": to_item(new),
                          "ConditionExpression": "#s = :old",
                          "ExpressionAttributeNames": {"#s": "state"},
                          "ExpressionAttributeValues": {":old": {"S": old.state}}}}
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
