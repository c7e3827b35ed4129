"""KMS signing backend: an asymmetric KMS key per signing key; each token is one KMS Sign call.

A key is created with its own key policy naming the roles that use it (the token function's:
Sign; the rotation function's: GetPublicKey, ScheduleKeyDeletion), because KMS applies a new
key's tags to authorization only after up to five minutes, so IAM conditions on
`aws:ResourceTag` cannot admit the first calls. Right after CreateKey the key itself may not be
visible yet (NotFoundException) and a role created seconds earlier may not be a valid principal
yet (MalformedPolicyDocumentException): both are retried a bounded number of times. Keys are
still tagged `authgate-stack=<stack>` (discovery, cost, teardown; CreateKey's IAM conditions).
Sign uses `MessageType=RAW` (KMS hashes the JWS signing input itself); ES256 signatures come
back DER encoded and are converted to JWS's fixed-width r || s (RFC 7518 section 3.4).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from botocore.exceptions import ClientError

from authgate import aws
from authgate.settings import get_settings
from authgate.stores.faults import aws_faults
from authgate.tokens.jwk import public_jwk
from authgate.tokens.jws import der_to_raw

if TYPE_CHECKING:
    from authgate.stores.signing_keys import KeyRecord

KEY_SPEC = {"RS256": "RSA_2048", "ES256": "ECC_NIST_P256"}
SIGNING_ALGORITHM = {"RS256": "RSASSA_PKCS1_V1_5_SHA_256", "ES256": "ECDSA_SHA_256"}
PENDING_DELETION_DAYS = 7
# Pauses (seconds) before each retry of a call KMS may refuse only because the key, or a role its
# policy names, is not visible yet: 31 s in all, inside the rotation function's 60 s timeout.
NOT_YET_VISIBLE_BACKOFF = (0.5, 1.0, 2.0, 4.0, 8.0, 15.5)
_T = TypeVar("_T")


def key_policy(account_root: str, signer_role: str, admin_role: str) -> dict[str, Any]:
    """The policy a new signing key is created with: the account (IAM decides, as KMS's default
    policy does) plus the roles that use the key right after it exists (`signer_role`: one ARN, or
    several separated by commas)."""
    statements: list[dict[str, Any]] = [
        {"Sid": "AccountAdministersThroughIam", "Effect": "Allow", "Principal": {"AWS": account_root},
         "Action": "kms:*", "Resource": "*"}]
    # The token function's role, and the deliver function's after a comma (it signs logout tokens).
    signers = [role for role in signer_role.split(",") if role]
    if signers:
        statements.append({"Sid": "TokenFunctionSigns", "Effect": "Allow",
                           "Principal": {"AWS": signers[0] if len(signers) == 1 else signers},
                           "Action": "kms:Sign", "Resource": "*"})
    if admin_role:
        statements.append({"Sid": "RotationReadsAndRetires", "Effect": "Allow", "Principal": {"AWS": admin_role},
                           "Action": ["kms:GetPublicKey", "kms:ScheduleKeyDeletion"], "Resource": "*"})
    return {"Version": "2012-10-17", "Statement": statements}


def account_root(role_arn: str) -> str:
    """arn:<partition>:iam::<account>:root of a role's account; empty without a role."""
    parts = role_arn.split(":")
    return f"arn:{parts[1]}:iam::{parts[4]}:root" if len(parts) >= 6 and parts[4] else ""


def retry_not_yet_visible(call: Callable[[], _T], codes: frozenset[str],
                          sleep: Callable[[float], None] = time.sleep) -> _T:
    """`call()`, retried with backoff while KMS answers one of `codes` (eventual consistency)."""
    for pause in (*NOT_YET_VISIBLE_BACKOFF, None):
        try:
            return call()
        except ClientError as exc:
            if pause is None or exc.response["Error"]["Code"] not in codes:
                raise
        sleep(pause)
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class KmsSigner:
    kid: str
    alg: str
    key_id: str
    client: Any

    def sign(self, signing_input: bytes) -> bytes:
        # A throttled Sign (the account's shared KMS quota) is a 503 with Retry-After, not a 500.
        with aws_faults("kms:Sign"):
            signature = self.client.sign(KeyId=self.key_id, Message=signing_input, MessageType="RAW",
                                         SigningAlgorithm=SIGNING_ALGORITHM[self.alg])["Signature"]
        return der_to_raw(signature) if self.alg == "ES256" else signature


class KmsBackend:
    def __init__(self, kms: Any = None) -> None:
        if kms is None:
            kms = aws.kms()
        self._kms = kms

    def create_key(self, kid: str, alg: str) -> tuple[dict[str, str], dict[str, Any]]:
        # Only a new key needs cryptography's serialization (docs/decisions.md, measured shortcuts).
        from cryptography.hazmat.primitives.serialization import load_der_public_key

        settings = get_settings()
        root = account_root(settings.kms_admin_role or settings.kms_signer_role.split(",")[0])
        # Outside AWS no role is configured: KMS's default policy (the account's IAM decides).
        policy = {"Policy": json.dumps(key_policy(root, settings.kms_signer_role, settings.kms_admin_role))} if root else {}
        metadata = retry_not_yet_visible(lambda: self._kms.create_key(
            KeySpec=KEY_SPEC[alg], KeyUsage="SIGN_VERIFY", Origin="AWS_KMS",
            Description=f"authgate {settings.stack} token signing key {kid} ({alg})",
            Tags=[{"TagKey": "authgate-stack", "TagValue": settings.stack},
                  {"TagKey": "authgate-stage", "TagValue": settings.stage},
                  {"TagKey": "authgate-kid", "TagValue": kid}],
            **policy,
        )["KeyMetadata"], frozenset({"MalformedPolicyDocumentException"}))
        key_id = metadata["KeyId"]
        der = retry_not_yet_visible(lambda: self._kms.get_public_key(KeyId=key_id)["PublicKey"],
                                    frozenset({"NotFoundException", "AccessDeniedException"}))
        return {"kms_key_id": key_id}, public_jwk(load_der_public_key(der), kid, alg)

    def load_signer(self, record: KeyRecord) -> KmsSigner:
        return KmsSigner(record.kid, record.alg, record.kms_key_id, self._kms)

    def destroy(self, record: KeyRecord) -> None:
        try:
            self._kms.schedule_key_deletion(KeyId=record.kms_key_id, PendingWindowInDays=PENDING_DELETION_DAYS)
        except ClientError as exc:
            if exc.response["Error"]["Code"] not in {"NotFoundException", "KMSInvalidStateException"}:
                raise
