"""Authorization codes (RFC 6749 4.1.2, 10.5; RFC 9700 2.1.1): hashed, 60 s, single use.

Only SHA-256 of a code is stored. A code is consumed by ONE conditional UpdateItem, so of any
number of concurrent exchanges exactly one wins; every loser learns why (already used, expired,
unknown) and, for reuse, gets the stored record so the caller can revoke the grant it issued.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from typing import Any, NamedTuple

from authgate import clock
from authgate.settings import get_settings
from authgate.stores.base import TableStore
from authgate.stores.exceptions import CodeAlreadyUsed, CodeExpired, CodeNotFound
from authgate.stores.faults import condition_failed


class AuthorizationCode(NamedTuple):
    """A stored code: what it is bound to (client, redirect URI, PKCE challenge, scope, user)."""

    code_hash: str
    client_id: str
    tenant_id: str
    # Where the code was sent: as the authorization request named it, or the client's only
    # registered URI when it named none (None: an item written before this was recorded).
    redirect_uri: str | None
    code_challenge: str
    code_challenge_method: str
    scope: str
    subject: str
    # Ties every token issued from this code together, so a replay can revoke them all.
    grant_id: str
    state: str
    issued_at: int
    expires_at: int
    # Whether the authorization request included redirect_uri: then the token request must repeat
    # it; if not, it may omit it or name the same URI (RFC 6749 4.1.3).
    redirect_uri_sent: bool = True
    # RFC 9449 10: the DPoP key (thumbprint) the code must be redeemed with, when the request named one.
    dpop_jkt: str | None = None
    # RFC 8707 2: the resource the authorization request named (the token's audience), if any.
    resource: str | None = None


def hash_code(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8")).hexdigest()


def _from_item(item: dict[str, Any]) -> AuthorizationCode:
    def s(name: str) -> str:
        return item[name]["S"] if name in item else ""

    return AuthorizationCode(
        code_hash=s("code_hash"),
        client_id=s("client_id"),
        tenant_id=s("tenant_id"),
        redirect_uri=item["redirect_uri"]["S"] if "redirect_uri" in item else None,
        code_challenge=s("code_challenge"),
        code_challenge_method=s("code_challenge_method"),
        scope=s("scope"),
        subject=s("subject"),
        grant_id=s("grant_id"),
        state=s("state"),
        issued_at=int(item.get("issued_at", {}).get("N", "0")),
        expires_at=int(item.get("expires_at", {}).get("N", "0")),
        redirect_uri_sent=bool(item.get("redirect_uri_sent", {}).get("BOOL", "redirect_uri" in item)),
        dpop_jkt=item.get("dpop_jkt", {}).get("S"),
        resource=item.get("resource", {}).get("S"),
    )


class CodeStore(TableStore):
    """CodesTable: code_hash -> the authorization request a code was issued for."""

    table_setting = "codes"

    def create(self, *, client_id: str, tenant_id: str, redirect_uri: str | None,
               code_challenge: str, code_challenge_method: str, scope: str, subject: str,
               ttl: int | None = None, redirect_uri_sent: bool | None = None,
               dpop_jkt: str | None = None, resource: str | None = None) -> str:
        """Store a new code and return it in plain text (the only time it exists unhashed)."""
        code = secrets.token_urlsafe(32)
        now = clock.seconds()
        lifetime = ttl if ttl is not None else get_settings().auth_code_ttl
        item: dict[str, Any] = {
            "code_hash": {"S": hash_code(code)},
            "client_id": {"S": client_id},
            "tenant_id": {"S": tenant_id},
            "code_challenge": {"S": code_challenge},
            "code_challenge_method": {"S": code_challenge_method},
            "scope": {"S": scope},
            "subject": {"S": subject},
            "grant_id": {"S": str(uuid.uuid4())},
            "state": {"S": "issued"},
            "issued_at": {"N": str(now)},
            "expires_at": {"N": str(now + lifetime)},
        }
        if redirect_uri is not None:
            item["redirect_uri"] = {"S": redirect_uri}
        if dpop_jkt:
            item["dpop_jkt"] = {"S": dpop_jkt}
        if resource:
            item["resource"] = {"S": resource}
        item["redirect_uri_sent"] = {"BOOL": redirect_uri is not None if redirect_uri_sent is None
                                     else redirect_uri_sent}
        with self.faults("create"):
            # 256 random bits never collide in practice; the condition makes sure of it.
            self.db.put_item(TableName=self.table, Item=item,
                             ConditionExpression="attribute_not_exists(code_hash)")
        return code

    def consume(self, code: str) -> AuthorizationCode:
        """Mark the code consumed and return it; raise a CodeError otherwise (RFC 6749 4.1.2)."""
        from botocore.exceptions import ClientError

        now = clock.seconds()
        try:
            with self.faults("consume"):
                # One write decides: the item must exist, still be `issued` and not be expired.
                # Concurrent exchanges of one code are serialised by DynamoDB on the item, so
                # exactly one sees the condition hold.
                result = self.db.update_item(
                    TableName=self.table,
                    Key={"code_hash": {"S": hash_code(code)}},
                    UpdateExpression="SET #state = :consumed, consumed_at = :now",
                    ConditionExpression="attribute_exists(code_hash) AND #state = :issued AND expires_at > :now",
                    ExpressionAttributeNames={"#state": "state"},
                    ExpressionAttributeValues={":consumed": {"S": "consumed"}, ":issued": {"S": "issued"},
                                               ":now": {"N": str(now)}},
                    ReturnValues="ALL_NEW",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            old = exc.response.get("Item")
            if not old:
                raise CodeNotFound() from exc
            record = _from_item(old)
            if record.state == "consumed":
                raise CodeAlreadyUsed(record) from exc
            raise CodeExpired(record) from exc
        return _from_item(result["Attributes"])
