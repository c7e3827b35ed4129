"""RefreshTokensTable: refresh-token families with rotation and reuse detection (RFC 9700 §4.14.2).

Two kinds of item share the table:
- a token: `token_hash` = SHA-256 hex of the token, with family_id (the grant id), client,
  tenant, subject, scope, state active | rotated | revoked, rotated_to and expires_at (the
  family's expiry: rotation never extends a family);
- the family head: `token_hash` = "family#<family_id>", state active | revoked.
Rotation is one transaction: a conditional update of the presented token (it must still be
active), a condition check that the family is not revoked, and the put of the successor. Of
any number of concurrent rotations of one token at most one succeeds.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any, NamedTuple

from authgate.settings import get_settings
from authgate.stores.base import TableStore
from authgate.stores.exceptions import RotationFailed, StorageUnavailable
from authgate.stores.faults import cancellation_codes


class RefreshToken(NamedTuple):
    token_hash: str
    family_id: str
    client_id: str
    tenant_id: str
    subject: str
    scope: str
    state: str
    expires_at: int
    issued_at: int
    rotated_to: str | None = None
    # RFC 9449 5.0: a public client's family is bound to the key (thumbprint) of its first proof.
    dpop_jkt: str | None = None
    # RFC 8707 2.2: the resource the grant is for (None: the charges API); every token of the
    # family is for it.
    resource: str | None = None


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def family_key(family_id: str) -> str:
    return f"family#{family_id}"


def _token_item(r: RefreshToken) -> dict[str, Any]:
    item: dict[str, Any] = {
        "token_hash": {"S": r.token_hash}, "kind": {"S": "token"}, "family_id": {"S": r.family_id},
        "client_id": {"S": r.client_id}, "tenant_id": {"S": r.tenant_id}, "subject": {"S": r.subject},
        "scope": {"S": r.scope}, "state": {"S": r.state}, "expires_at": {"N": str(r.expires_at)},
        "issued_at": {"N": str(r.issued_at)},
    }
    if r.dpop_jkt:
        item["dpop_jkt"] = {"S": r.dpop_jkt}
    if r.resource:
        item["resource"] = {"S": r.resource}
    return item


def _from_item(item: dict[str, Any]) -> RefreshToken:
    return RefreshToken(
        token_hash=item["token_hash"]["S"], family_id=item["family_id"]["S"],
        client_id=item["client_id"]["S"], tenant_id=item.get("tenant_id", {}).get("S", ""),
        subject=item.get("subject", {}).get("S", ""), scope=item.get("scope", {}).get("S", ""),
        state=item["state"]["S"], expires_at=int(item["expires_at"]["N"]),
        issued_at=int(item.get("issued_at", {}).get("N", "0")),
        rotated_to=item.get("rotated_to", {}).get("S"),
        dpop_jkt=item.get("dpop_jkt", {}).get("S"),
        resource=item.get("resource", {}).get("S"),
    )


class RefreshTokenStore(TableStore):
    table_setting = "refresh"

    def _family_upsert(self, family_id: str, expires_at: int) -> dict[str, Any]:
        # if_not_exists: a family revoked before its first token was written (a replayed code
        # racing the winning exchange) stays revoked.
        return {"Update": {
            "TableName": self.table, "Key": {"token_hash": {"S": family_key(family_id)}},
            "UpdateExpression": "SET #s = if_not_exists(#s, :active), kind = :family, expires_at = :e",
            "ExpressionAttributeNames": {"#s": "state"},
            "ExpressionAttributeValues": {":active": {"S": "active"}, ":family": {"S": "family"},
                                          ":e": {"N": str(expires_at)}},
        }}

    def start_family(self, *, family_id: str, client_id: str, tenant_id: str, subject: str,
                     scope: str, now: int, ttl: int | None = None, dpop_jkt: str | None = None,
                     resource: str | None = None) -> str:
        """Issue the first refresh token of a family (one transaction); returns it in plain text.

        `dpop_jkt` binds every token of the family to that DPoP key (RFC 9449 5.0, public clients).
        """
        token = secrets.token_urlsafe(32)
        expires_at = now + (ttl if ttl is not None else get_settings().refresh_token_ttl)
        record = RefreshToken(hash_token(token), family_id, client_id, tenant_id, subject, scope,
                              "active", expires_at, now, dpop_jkt=dpop_jkt, resource=resource)
        from botocore.exceptions import ClientError

        try:
            with self.faults("start_family"):
                self.db.transact_write_items(TransactItems=[
                    {"Put": {"TableName": self.table, "Item": _token_item(record),
                             "ConditionExpression": "attribute_not_exists(token_hash)"}},
                    self._family_upsert(family_id, expires_at),
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
        with self.faults("get"):
            item = self.db.get_item(TableName=self.table, Key={"token_hash": {"S": hash_token(token)}},
                                    ConsistentRead=True).get("Item")
        if not item or item.get("kind", {}).get("S") != "token":
            return None
        return _from_item(item)

    def rotate(self, old: RefreshToken, now: int) -> str:
        """Replace an active token by a new one of the same family, scope and expiry."""
        from botocore.exceptions import ClientError

        token = secrets.token_urlsafe(32)
        new = RefreshToken(hash_token(token), old.family_id, old.client_id, old.tenant_id, old.subject,
                           old.scope, "active", old.expires_at, now, dpop_jkt=old.dpop_jkt,
                           resource=old.resource)
        try:
            with self.faults("rotate"):
                self.db.transact_write_items(TransactItems=[
                    # The presented token must still be active: exactly one rotation wins.
                    {"Update": {
                        "TableName": self.table, "Key": {"token_hash": {"S": old.token_hash}},
                        "UpdateExpression": "SET #s = :rotated, rotated_to = :new, rotated_at = :now",
                        "ConditionExpression": "#s = :active",
                        "ExpressionAttributeNames": {"#s": "state"},
                        "ExpressionAttributeValues": {":rotated": {"S": "rotated"}, ":active": {"S": "active"},
                                                      ":new": {"S": new.token_hash}, ":now": {"N": str(now)}},
                    }},
                    # A revoked family rotates no more, whichever of its tokens is presented.
                    {"ConditionCheck": {
                        "TableName": self.table, "Key": {"token_hash": {"S": family_key(old.family_id)}},
                        "ConditionExpression": "#s = :active",
                        "ExpressionAttributeNames": {"#s": "state"},
                        "ExpressionAttributeValues": {":active": {"S": "active"}},
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
                TableName=self.table, Key={"token_hash": {"S": family_key(family_id)}},
                UpdateExpression="SET #s = :revoked, kind = :family, expires_at = if_not_exists(expires_at, :e)",
                ExpressionAttributeNames={"#s": "state"},
                ExpressionAttributeValues={":revoked": {"S": "revoked"}, ":family": {"S": "family"},
                                           ":e": {"N": str(expires_at)}},
            )

    def family_active(self, family_id: str) -> bool:
        """True while the family is not revoked (introspection of a refresh token)."""
        with self.faults("family"):
            item = self.db.get_item(TableName=self.table, Key={"token_hash": {"S": family_key(family_id)}},
                                    ConsistentRead=True).get("Item")
        return bool(item) and item["state"]["S"] == "active"
