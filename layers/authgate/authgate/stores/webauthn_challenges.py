"""WebAuthn challenges in CodesTable (`webauthn#<sha256>`): issued, then consumed by ONE conditional UpdateItem.

The record is authgate.single_use.webauthn_challenges. A challenge is consumed only when it exists, is
unused, unexpired (checked here: moto never deletes TTL items, DynamoDB late), of the ceremony's
purpose and bound to the same caller; of concurrent uses one wins. Only hashes are stored.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from authgate import base64url, clock, records
from authgate.records import n, s
from authgate.single_use.webauthn_challenges import (
    FIELDS,
    LIFETIME,
    Challenge,
    ChallengeRefused,
    Purpose,
)
from authgate.stores.base import TableStore
from authgate.stores.faults import condition_failed

# WebAuthn 13.4.3: at least 16 random bytes; 32 here.
CHALLENGE_BYTES = 32


def _item_id(challenge: bytes) -> str:
    return "webauthn#" + hashlib.sha256(challenge).hexdigest()


def _binding(binding: str) -> str:
    return hashlib.sha256(binding.encode("utf-8")).hexdigest()


class WebAuthnChallengeStore(TableStore):
    """CodesTable items `webauthn#<hash>` -> a ceremony's purpose, caller binding and user, single use."""

    table_setting = "codes"
    name = "webauthn_challenges"

    def issue(self, purpose: Purpose, binding: str, tenant_id: str, username: str = "") -> bytes:
        """A new challenge for one ceremony of `purpose`, bound to `binding`."""
        challenge = secrets.token_bytes(CHALLENGE_BYTES)
        now = clock.seconds()
        item = records.to_item(FIELDS, {"code_hash": _item_id(challenge), "state": "issued", "purpose": purpose,
                                        "binding_hash": _binding(binding), "tenant_id": tenant_id,
                                        "username": username, "issued_at": now, "expires_at": now + LIFETIME})
        self.upsert(item, "create", condition="attribute_not_exists(code_hash)")
        return challenge

    def consume(self, challenge_b64: str, purpose: Purpose, binding: str) -> Challenge:
        """Spend the challenge the client data names (base64url, WebAuthn 5.8.1), once; ChallengeRefused otherwise."""
        from botocore.exceptions import ClientError

        try:
            challenge = base64url.decode(challenge_b64)
        except ValueError:
            raise ChallengeRefused("the challenge is not base64url") from None
        key: dict[str, Any] = {"code_hash": s(_item_id(challenge))}
        try:
            with self.faults("consume"):
                result = self.db.update_item(
                    TableName=self.table, Key=key, UpdateExpression="SET #state = :used, used_at = :now",
                    ConditionExpression="attribute_exists(code_hash) AND #state = :issued AND purpose = :purpose "
                                        "AND binding_hash = :binding AND expires_at > :now",
                    ExpressionAttributeNames={"#state": "state"},
                    ExpressionAttributeValues={":used": s("used"), ":issued": s("issued"), ":purpose": s(purpose),
                                               ":binding": s(_binding(binding)), ":now": n(clock.seconds())},
                    ReturnValues="ALL_NEW")
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            raise ChallengeRefused("unknown, used, expired, of another ceremony or another caller") from exc
        stored = records.from_item(FIELDS, result["Attributes"])
        return Challenge(challenge, stored["purpose"], stored["tenant_id"], stored["username"])
