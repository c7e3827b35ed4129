"""RevocationsTable: revoked access tokens by `jti` and revoked grants (RFC 7009 section 2).

Items are `revocation_id` = "jti#<jti>" or "grant#<grant_id>" with `expires_at` (TTL) and
`revoked_at`: a revocation only needs to outlive the tokens it covers. DynamoDB's TTL deletion
is lazy (and moto never deletes), so expiry is checked here, in code. A token's check reads both
ids in the request's one BatchGetItem (stores.batch), strongly consistent: a token revoked a
moment ago must not pass.
"""

from __future__ import annotations

from typing import NamedTuple

from authgate import clock, records
from authgate.records import Field, n, s
from authgate.stores.base import TableStore
from authgate.stores.batch import BatchRead, Pending
from authgate.stores.faults import condition_failed

FIELDS = (Field("revocation_id", "S"), Field("expires_at", "N", 0), Field("revoked_at", "N", 0))


def jti_key(jti: str) -> str:
    return f"jti#{jti}"


def grant_key(grant_id: str) -> str:
    return f"grant#{grant_id}"


class RevocationCheck(NamedTuple):
    """A token's revocation ids registered in a batch read; `revoked(now)` once it ran."""

    pending: tuple[Pending, ...]

    def revoked(self, now: int) -> bool:
        return any(records.number(p.item, "expires_at") > now for p in self.pending if p.item is not None)


class RevocationStore(TableStore):
    table_setting = "revocations"

    def revoke_jti(self, jti: str, expires_at: int) -> None:
        """Revoke one access token until `expires_at` (its own `exp` plus leeway is enough)."""
        self._put(jti_key(jti), expires_at)

    def revoke_grant(self, grant_id: str, expires_at: int) -> None:
        """Revoke every token carrying `grant_id` (a code's or a refresh family's) until `expires_at`."""
        self._put(grant_key(grant_id), expires_at)

    def _put(self, revocation_id: str, expires_at: int) -> None:
        item = records.to_item(FIELDS, {"revocation_id": revocation_id, "expires_at": int(expires_at),
                                        "revoked_at": clock.seconds()})
        from botocore.exceptions import ClientError

        try:
            # Revoking twice keeps the later expiry: a second revoke with an earlier expires_at
            # must not shorten the first.
            self.upsert(item, condition="attribute_not_exists(revocation_id) OR expires_at < :e",
                        values={":e": n(int(expires_at))})
        except ClientError as exc:
            if not condition_failed(exc):
                raise

    def prefetch(self, reads: BatchRead, jti: str, grant_id: str | None) -> RevocationCheck:
        """Register the token's ids (its jti and its grant) in the request's batch read."""
        ids = [jti_key(jti)] + ([grant_key(grant_id)] if grant_id else [])
        return RevocationCheck(tuple(reads.add(self.table, {"revocation_id": s(i)}) for i in ids))

    def is_revoked(self, jti: str, grant_id: str | None, now: int) -> bool:
        """True if the token or its grant is revoked: ONE BatchGetItem for both ids."""
        reads = BatchRead(self.db, "revocations.batch_get")
        check = self.prefetch(reads, jti, grant_id)
        reads.run()
        return check.revoked(now)
