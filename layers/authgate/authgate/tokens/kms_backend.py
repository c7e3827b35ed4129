"""KMS signing backend: an asymmetric KMS key per signing key; each token is one KMS Sign call.

Keys are tagged `authgate-stack=<stack>` (the template's IAM conditions scope CreateKey, Sign,
GetPublicKey and ScheduleKeyDeletion to that tag, so a stack touches only its own keys). Sign uses
`MessageType=RAW` (KMS hashes the JWS signing input itself); ES256 signatures come back DER
encoded and are converted to JWS's fixed-width r || s (RFC 7518 section 3.4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from authgate.settings import get_settings
from authgate.tokens.jws import der_to_raw

if TYPE_CHECKING:
    from authgate.stores.signing_keys import KeyRecord

KEY_SPEC = {"RS256": "RSA_2048", "ES256": "ECC_NIST_P256"}
SIGNING_ALGORITHM = {"RS256": "RSASSA_PKCS1_V1_5_SHA_256", "ES256": "ECDSA_SHA_256"}
PENDING_DELETION_DAYS = 7


@dataclass(frozen=True)
class KmsSigner:
    kid: str
    alg: str
    key_id: str
    client: Any

    def sign(self, signing_input: bytes) -> bytes:
        signature = self.client.sign(KeyId=self.key_id, Message=signing_input, MessageType="RAW",
                                     SigningAlgorithm=SIGNING_ALGORITHM[self.alg])["Signature"]
        return der_to_raw(signature) if self.alg == "ES256" else signature


class KmsBackend:
    def __init__(self, kms: Any = None) -> None:
        if kms is None:
            from authgate.aws import kms as default_client

            kms = default_client()
        self._kms = kms

    def create_key(self, kid: str, alg: str) -> tuple[dict[str, str], dict[str, Any]]:
        from cryptography.hazmat.primitives.serialization import load_der_public_key

        from authgate.tokens.jwk import public_jwk

        settings = get_settings()
        key_id = self._kms.create_key(
            KeySpec=KEY_SPEC[alg], KeyUsage="SIGN_VERIFY",
            Description=f"authgate {settings.stack} access-token signing key {kid} ({alg})",
            Tags=[{"TagKey": "authgate-stack", "TagValue": settings.stack},
                  {"TagKey": "authgate-stage", "TagValue": settings.stage},
                  {"TagKey": "authgate-kid", "TagValue": kid}],
        )["KeyMetadata"]["KeyId"]
        der = self._kms.get_public_key(KeyId=key_id)["PublicKey"]
        return {"kms_key_id": key_id}, public_jwk(load_der_public_key(der), kid, alg)

    def load_signer(self, record: KeyRecord) -> KmsSigner:
        return KmsSigner(record.kid, record.alg, record.kms_key_id, self._kms)

    def destroy(self, record: KeyRecord) -> None:
        from botocore.exceptions import ClientError

        try:
            self._kms.schedule_key_deletion(KeyId=record.kms_key_id, PendingWindowInDays=PENDING_DELETION_DAYS)
        except ClientError as exc:
            if exc.response["Error"]["Code"] not in {"NotFoundException", "KMSInvalidStateException"}:
                raise
