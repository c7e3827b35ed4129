"""RefreshTokensTable: refresh-token families with rotation and reuse detection (RFC 9700 §4.14.2).

The record and its failure are authgate.single_use.refresh_tokens. Two kinds of item share the table:
- a token: `token_hash` = SHA-256 hex of the token, with family_id (the grant id), client,
  tenant, subject, scope, state active | rotated | revoked, rotated_to and expires_at (the
  family's expiry: rotation never extends a family);
- the family head: `token_hash` = "family#<family_id>", state active | revoked.
Rotation is one transaction: a conditional update of the presented token (it must still be
active), a condition check that the family is not revoked, and the put of the successor. Of
any number of concurrent rotations of one token at most one succeeds.
"""

from __future__ import annotations

import secrets
from typing import Any

from authgate import records
from authgate.records import Field, n, s
from authgate.settings import get_settings
from authgate.single_use import authentication
from authgate.single_use.authentication import Authentication
from authgate.single_use.errors import RotationFailed
from authgate.single_use.refresh_tokens import FIELDS, RefreshToken, hash_token
from authgate.stores.base import TableStore
from authgate.stores.exceptions import StorageUnavailable
from authgate.stores.faults import cancellation_codes

# A token's item: its record and the kind that tells it from a family head.
ITEM_FIELDS = (*FIELDS, Field("kind", "S", ""))
_STATE = {"#s": "state"}


def family_key(family_id: str) -> str:
    return f"family#{family_id}"


def _key(token_hash: str) -> dict[str, Any]:
    return {"token_hash": s(token_hash)}


def _token_item(record: RefreshToken) -> records.Item:
    values = record._asdict()
    return records.to_item(ITEM_FIELDS, {**values, **authentication.values(values.pop("authentication")),
                                         "kind": "token"})


class RefreshTokenStore(TableStore):
    table_setting = "refresh"

    def _family_upsert(self, family_id: str, expires_at: int) -> dict[str, Any]:
        # if_not_exists: a family revoked before its first token was written (a replayed code
        # racing the winning exchange) stays revoked.
        return {"Update": {
            "TableName": self.table, "Key": _key(family_key(family_id)),
            "UpdateExpression": "SET #s = if_not_exists(#s, :active), kind = :family, expires_at = :e",
            "ExpressionAttributeNames": _STATE,
            "ExpressionAttributeValues": {":active": s("active"), ":family": s("family"), ":e": n(expires_at)},
        }}

    def start_family(self, *, family_id: str, client_id: str, tenant_id: str, subject: str,
                     scope: str, now: int, ttl: int | None = None, dpop_jkt: str | None = None,
                     resource: str | None = None, authentication: Authentication | None = None,
                     authorization_details: str | None = None, also: tuple[dict[str, Any], ...] = ()) -> str:
        """Issue the first refresh token of a family (one transaction, with the writes `also` given: the consent
        it is made under keeps its id); returns it in plain text.

        `dpop_jkt` binds every token of the family to that DPoP key (RFC 9449 5.0, public clients);
        `assurance` is the sign-in of the grant (its code's), kept by every token of the family.
        """
        token = secrets.token_urlsafe(32)
        expires_at = now + (ttl if ttl is not None else get_settings().refresh_token_ttl)
        record = RefreshToken(hash_token(token), family_id, client_id, tenant_id, subject, scope,
                              "active", expires_at, now, dpop_jkt=dpop_jkt, resource=resource,
                              authorization_details=authorization_details, authentication=authentication)
        from botocore.exceptions import ClientError

        try:
            with self.faults("start_family"):
                self.db.transact_write_items(TransactItems=[
                    {"Put": {"TableName": self.table, "Item": _token_item(record),
                             "ConditionExpression": "attribute_not_exists(token_hash)"}},
                    self._family_upsert(family_id, expires_at),
                    *also,
                ])
        except ClientError as exc:
            if "TransactionConflict" in cancellation_codes(exc.response):
                # A revocation of the family at the same instant (real DynamoDB): retry later.
                raise StorageUnavailable("refresh.start_family", "TransactionConflict") from exc
            raise
        return token

    def get(self, token: str) -> RefreshToken | None:
        """The token's record (any state), or None when unknown. Strongly consistent."""
        if not token or len(token) > 512:
            return None
        item = self.find(_key(hash_token(token)))
        if not item:
            return None
        values = records.from_item(ITEM_FIELDS, item)
        if values.pop("kind") != "token":
            return None
        signed_in = authentication.of(values)  # takes its fields out of `values`
        return RefreshToken(**values, authentication=signed_in)

    def rotate(self, old: RefreshToken, now: int) -> str:
        """Replace an active token by a new one of the same family, scope and expiry."""
        from botocore.exceptions import ClientError

        token = secrets.token_urlsafe(32)
        new = RefreshToken(hash_token(token), old.family_id, old.client_id, old.tenant_id, old.subject,
                           old.scope, "active", old.expires_at, now, dpop_jkt=old.dpop_jkt,
                           resource=old.resource, authorization_details=old.authorization_details,
                           authentication=old.authentication)
        try:
            with self.faults("rotate"):
                self.db.transact_write_items(TransactItems=[
                    # The presented token must still be active: exactly one rotation wins.
                    {"Update": {
                        "TableName": self.table, "Key": _key(old.token_hash),
                        "UpdateExpression": "SET #s = :rotated, rotated_to = :new, rotated_at = :now",
                        "ConditionExpression": "#s = :active",
                        "ExpressionAttributeNames": _STATE,
                        "ExpressionAttributeValues": {":rotated": s("rotated"), ":active": s("active"),
                                                      ":new": s(new.token_hash), ":now": n(now)},
                    }},
                    # A revoked family rotates no more, whichever of its tokens is presented.
                    {"ConditionCheck": {
                        "TableName": self.table, "Key": _key(family_key(old.family_id)),
                        "ConditionExpression": "#s = :active",
                        "ExpressionAttributeNames": _STATE,
                        "ExpressionAttributeValues": {":active": s("active")},
                    }},
                    {"Put": {"TableName": self.table, "Item": _token_item(new),
                             "ConditionExpression": "attribute_not_exists(token_hash)"}},
                ])
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "TransactionCanceledException":
                raise
            reasons = cancellation_codes(exc.response)
            if "TransactionConflict" in reasons:
                # Another transaction on the token or family at the same instant (real DynamoDB):
                # nothing changed; the client may retry, and a concurrent use still wins at most once.
                raise StorageUnavailable("refresh.rotate", "TransactionConflict") from exc
            reused = bool(reasons) and reasons[0] == "ConditionalCheckFailed"
            family_revoked = len(reasons) > 1 and reasons[1] == "ConditionalCheckFailed"
            if not reasons:
                # No per-item reasons (some emulators): a lost race on the token is the only
                # condition a valid, active token can fail.
                reused = True
            raise RotationFailed(reused, family_revoked) from exc
        return token

    def revoke_family(self, family_id: str, expires_at: int) -> None:
        """Mark the family revoked: none of its tokens can be rotated again (RFC 7009 2.1)."""
        with self.faults("revoke_family"):
            self.db.update_item(
                TableName=self.table, Key=_key(family_key(family_id)),
                UpdateExpression="SET #s = :revoked, kind = :family, expires_at = if_not_exists(expires_at, :e)",
                ExpressionAttributeNames=_STATE,
                ExpressionAttributeValues={":revoked": s("revoked"), ":family": s("family"), ":e": n(expires_at)},
            )

    def family_active(self, family_id: str) -> bool:
        """True while the family is not revoked (introspection of a refresh token)."""
        item = self.find(_key(family_key(family_id)), "family")
        return bool(item) and records.string(item or {}, "state") == "active"
