"""CodesTable: authorization codes (RFC 6749 4.1.2, 10.5; RFC 9700 2.1.1), hashed, 60 s, single use.

The record and its failures are authgate.single_use.codes; this module writes and consumes them.
Only SHA-256 of a code is stored. A code is consumed by ONE conditional UpdateItem, so of any
number of concurrent exchanges exactly one wins; every loser learns why (already used, expired,
unknown) and, for reuse, gets the stored record so the caller can revoke the grant it issued.
"""

from __future__ import annotations

import secrets
import uuid

from authgate import clock
from authgate.records import n, s
from authgate.settings import get_settings
from authgate.single_use.authentication import Authentication
from authgate.single_use.codes import AuthorizationCode, from_item, hash_code, to_item
from authgate.single_use.errors import CodeAlreadyUsed, CodeExpired, CodeNotFound
from authgate.stores.base import TableStore
from authgate.stores.faults import condition_failed


class CodeStore(TableStore):
    """CodesTable: code_hash -> the authorization request a code was issued for."""

    table_setting = "codes"

    def create(self, *, client_id: str, tenant_id: str, redirect_uri: str | None,
               code_challenge: str, code_challenge_method: str, scope: str, subject: str,
               ttl: int | None = None, redirect_uri_sent: bool | None = None,
               dpop_jkt: str | None = None, resource: str | None = None, nonce: str | None = None,
               authentication: Authentication | None = None, grant_id: str | None = None,
               authorization_details: str | None = None) -> str:
        """Store a new code and return it in plain text (the only time it exists unhashed)."""
        code = secrets.token_urlsafe(32)
        now = clock.seconds()
        lifetime = ttl if ttl is not None else get_settings().auth_code_ttl
        record = AuthorizationCode(
            code_hash=hash_code(code), client_id=client_id, tenant_id=tenant_id, redirect_uri=redirect_uri,
            code_challenge=code_challenge, code_challenge_method=code_challenge_method, scope=scope,
            subject=subject, grant_id=grant_id or str(uuid.uuid4()), state="issued", issued_at=now, expires_at=now + lifetime,
            redirect_uri_sent=redirect_uri is not None if redirect_uri_sent is None else redirect_uri_sent,
            dpop_jkt=dpop_jkt, resource=resource, nonce=nonce, authorization_details=authorization_details,
            authentication=authentication)
        # 256 random bits never collide in practice; the condition makes sure of it.
        self.upsert(to_item(record), "create", condition="attribute_not_exists(code_hash)")
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
                    Key={"code_hash": s(hash_code(code))},
                    UpdateExpression="SET #state = :consumed, consumed_at = :now",
                    ConditionExpression="attribute_exists(code_hash) AND #state = :issued AND expires_at > :now",
                    ExpressionAttributeNames={"#state": "state"},
                    ExpressionAttributeValues={":consumed": s("consumed"), ":issued": s("issued"), ":now": n(now)},
                    ReturnValues="ALL_NEW",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            old = exc.response.get("Item")
            if not old:
                raise CodeNotFound() from exc
            record = from_item(old)
            if record.state == "consumed":
                raise CodeAlreadyUsed(record) from exc
            raise CodeExpired(record) from exc
        return from_item(result["Attributes"])
