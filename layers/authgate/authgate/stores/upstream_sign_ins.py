"""Upstream sign-ins pending their IdP's answer, in CodesTable (`upstream#<sha256>`): issued, then spent by ONE
conditional UpdateItem (authgate.single_use.upstream_sign_ins).

Spent only when it exists, is unused and unexpired (checked here: moto never deletes TTL items, DynamoDB late); of
two answers carrying the same handle one wins. The item holds the sealed state and its times, nothing in clear.
"""

from __future__ import annotations

import secrets
from typing import Any

from authgate import clock, records
from authgate.records import n, s
from authgate.single_use.upstream_sign_ins import (
    FIELDS,
    LIFETIME,
    PendingInvalid,
    PendingSignIn,
    item_id,
    opened,
    seal,
)
from authgate.stores.base import TableStore
from authgate.stores.faults import condition_failed

# A handle is 32 random bytes, 43 base64url characters: within SAML's 80-byte RelayState.
HANDLE_BYTES = 32
MAX_HANDLE = 64


def new_handle() -> str:
    """A pending sign-in's handle: 256 random bits."""
    return secrets.token_urlsafe(HANDLE_BYTES)


class UpstreamSignInStore(TableStore):
    """CodesTable items `upstream#<hash>` -> a pending upstream sign-in, single use."""

    table_setting = "codes"
    name = "upstream_sign_ins"

    def issue(self, pending: PendingSignIn, handle: str) -> None:
        """Keep `pending` under `handle` (new_handle: the value the IdP echoes), one PutItem."""
        now = clock.seconds()
        item = records.to_item(FIELDS, {"code_hash": item_id(handle), "state": "issued",
                                        "sealed": seal(pending, handle), "issued_at": now,
                                        "expires_at": now + LIFETIME})
        self.upsert(item, "create", condition="attribute_not_exists(code_hash)")

    def spend(self, handle: str) -> PendingSignIn:
        """The pending sign-in of `handle`, spent once (one UpdateItem); PendingInvalid otherwise."""
        from botocore.exceptions import ClientError

        if not handle or len(handle) > MAX_HANDLE:
            raise PendingInvalid("no handle, or one too long")
        key: dict[str, Any] = {"code_hash": s(item_id(handle))}
        try:
            with self.faults("spend"):
                result = self.db.update_item(
                    TableName=self.table, Key=key, UpdateExpression="SET #state = :used, used_at = :now",
                    ConditionExpression="attribute_exists(code_hash) AND #state = :issued AND expires_at > :now",
                    ExpressionAttributeNames={"#state": "state"},
                    ExpressionAttributeValues={":used": s("used"), ":issued": s("issued"), ":now": n(clock.seconds())},
                    ReturnValues="ALL_NEW")
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            raise PendingInvalid("unknown, used or expired") from exc
        return opened(records.from_item(FIELDS, result["Attributes"])["sealed"], handle)
