"""KeysTable: signing-key metadata and each key's public JWK (RFC 7517 section 4), and the published set.

One item per key: `kid`, `state` (next | current | previous | retired), `alg`, `backend`
(local | kms), `public_jwk` (JSON string), `secret_id` or `kms_key_id`, `created_at`,
`activates_at` (earliest time it may sign), `retires_at` (earliest time it may leave the
JWKS), `expires_at` (TTL, set when retired). Private key material is never stored here.

Beside them, one item under a well-known kid (`#published`: no key's kid, tokens.rotation.new_kid)
holds the published keys' records (next, current, previous) and a version. Every write of a key
rewrites it in the same transaction, conditional on the version it was planned on, so it never
disagrees with the keys' own items, and two rotations at once cannot both write. A request
reads it with one GetItem, or inside its batch read (the token endpoint's signer), never with
a Scan. A table written before the item existed (a deployment's first days on this version)
is read with a Scan until the next rotation writes it (`KeyRing.stored`).
This module must not import jwt or cryptography: the JWKS path reads it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from authgate import records
from authgate.records import Field, n, s
from authgate.stores.base import TableStore
from authgate.stores.batch import BatchRead, Pending
from authgate.stores.exceptions import KeyStateConflict

NEXT, CURRENT, PREVIOUS, RETIRED = "next", "current", "previous", "retired"
PUBLISHED = (CURRENT, NEXT, PREVIOUS)
RING_KID = "#published"


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
# The published keys' item: their records (by field name, as JSON) and the version of the set.
RING_FIELDS = (Field("kid", "S"), Field("version", "N", 0), Field("keys", "JSON", ()))


def to_item(record: KeyRecord) -> records.Item:
    return records.to_item(FIELDS, record._asdict())


def from_item(item: records.Item) -> KeyRecord:
    return KeyRecord(**records.from_item(FIELDS, item))


def _newest_first(keys: Iterable[KeyRecord]) -> list[KeyRecord]:
    return sorted(keys, key=lambda r: (r.created_at, r.kid), reverse=True)


class KeyRing(NamedTuple):
    """The published keys as one read saw them, and the version a write planned on them must find."""

    keys: tuple[KeyRecord, ...]
    version: int = 0
    # False: the table has no published-keys item yet (written by the next rotation); read by a Scan.
    stored: bool = True

    def published(self) -> list[KeyRecord]:
        """The keys in the JWKS: current first, then next, then previous (newest first within a state)."""
        order = {state: i for i, state in enumerate(PUBLISHED)}
        return sorted(_newest_first(self.keys), key=lambda r: order[r.state])

    def current(self, alg: str | None = None) -> KeyRecord | None:
        """The key that signs now (with `alg`, when given): the newest current one (None: no key may sign)."""
        return next((k for k in _newest_first(self.keys) if k.state == CURRENT and alg in (None, k.alg)), None)

    def changed(self, changes: Iterable[tuple[KeyRecord | None, KeyRecord]]) -> tuple[KeyRecord, ...]:
        """The published keys once `changes` (old, new) are applied: a retired key leaves the set."""
        by_kid = {k.kid: k for k in self.keys}
        for _old, new in changes:
            by_kid[new.kid] = new
        return tuple(k for k in _newest_first(by_kid.values()) if k.state in PUBLISHED)


class KeyStore(TableStore):
    table_setting = "keys"

    def all(self) -> list[KeyRecord]:
        """Every key record, newest first (retired ones too). A Scan: the admin listing and the rotation's report."""
        return _newest_first(from_item(item) for item in self._key_items())

    def _key_items(self) -> Iterator[records.Item]:
        # Items under a well-known kid ("#...": the published set, stores.saml_sp_keys' item) are no key.
        return (item for item in self.scan() if not records.string(item, "kid").startswith("#"))

    def ring(self) -> KeyRing:
        """The published keys (one strongly consistent GetItem; a Scan on a table without the item yet)."""
        return self._ring(self.find(_ring_key(), "ring"))

    def prefetch(self, reads: BatchRead) -> Pending:
        """Register the published keys' item in a batch read (`found` of it once the batch ran)."""
        return reads.add(self.table, _ring_key())

    def found(self, pending: Pending) -> KeyRing:
        """The published keys a prefetched read found."""
        return self._ring(pending.item)

    def _ring(self, item: records.Item | None) -> KeyRing:
        if item is None:
            keys = (from_item(i) for i in self._key_items())
            return KeyRing(tuple(k for k in _newest_first(keys) if k.state in PUBLISHED), stored=False)
        values = records.from_item(RING_FIELDS, item)
        return KeyRing(tuple(KeyRecord(**k) for k in values["keys"]), values["version"])

    def published(self) -> list[KeyRecord]:
        """Keys in the JWKS (next, current, previous): current first, then next, then previous."""
        return self.ring().published()

    def get(self, kid: str) -> KeyRecord | None:
        item = self.find({"kid": s(kid)})
        return from_item(item) if item else None

    def create(self, record: KeyRecord, ring: KeyRing | None = None) -> KeyRing:
        """Store a new key (a kid is never reused); returns the published keys after it."""
        return self._write([(None, record)], ring or self.ring())

    def transition(self, changes: Iterable[tuple[KeyRecord, KeyRecord]], ring: KeyRing | None = None) -> KeyRing:
        """Apply (old, new) state changes in one transaction, each conditional on the old state, and on the
        published keys being those of `ring` (read now when not given); returns the published keys after.

        Two rotations running at once cannot both promote: the loser's transaction fails.
        """
        return self._write(list(changes), ring or self.ring())

    def _write(self, changes: list[tuple[KeyRecord | None, KeyRecord]], ring: KeyRing) -> KeyRing:
        if not changes and ring.stored:
            return ring
        items: list[dict[str, Any]] = []
        for old, new in changes:
            if old is None:
                items.append({"Put": {"TableName": self.table, "Item": to_item(new),
                                      "ConditionExpression": "attribute_not_exists(kid)"}})
            else:
                items.append({"Put": {"TableName": self.table, "Item": to_item(new),
                                      "ConditionExpression": "#s = :old",
                                      "ExpressionAttributeNames": {"#s": "state"},
                                      "ExpressionAttributeValues": {":old": s(old.state)}}})
        after = KeyRing(ring.changed(changes), ring.version + 1)
        item = records.to_item(RING_FIELDS, {"kid": RING_KID, "version": after.version,
                                             "keys": [k._asdict() for k in after.keys]})
        # The set as it was planned on: absent (a table before the item), or at the version read.
        items.append({"Put": {"TableName": self.table, "Item": item, **(
            {"ConditionExpression": "version = :v", "ExpressionAttributeValues": {":v": n(ring.version)}}
            if ring.stored else {"ConditionExpression": "attribute_not_exists(kid)"})}})
        from botocore.exceptions import ClientError

        try:
            with self.faults("write"):
                self.db.transact_write_items(TransactItems=items)
        except ClientError as exc:
            if exc.response["Error"]["Code"] == "TransactionCanceledException":
                raise KeyStateConflict("a concurrent rotation changed the keys first") from exc
            raise
        return after


def _ring_key() -> dict[str, dict[str, str]]:
    return {"kid": s(RING_KID)}
