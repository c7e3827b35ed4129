"""Local signing backend: the private key lives in Secrets Manager, signing happens in memory.

Secret name `authgate/<stage>/signing/<kid>` (the functions' IAM policies are scoped to that
prefix), tagged `authgate-stage=<stage>`. A warm function fetches a key's PEM once and keeps
the loaded key object; signing is then a local RSA/ECDSA operation with no network call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from authgate.dependencies import cached
from authgate.settings import get_settings

if TYPE_CHECKING:
    from authgate.stores.keys import KeyRecord


@cached
def _loaded() -> dict[str, Any]:
    """Loaded private keys by kid; a process signs with one or two keys in its lifetime.

    A warm cache like the others, so `dependencies.reset()` makes a process truly cold again.
    """
    return {}


# Deleted secrets stay recoverable this long (Secrets Manager allows 7-30 days).
RECOVERY_WINDOW_DAYS = 7


def secret_name(kid: str) -> str:
    return f"authgate/{get_settings().stage}/signing/{kid}"


@dataclass(frozen=True)
class LocalSigner:
    kid: str
    alg: str
    private_key: Any

    def sign(self, signing_input: bytes) -> bytes:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec, padding
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

        if self.alg == "RS256":
            return self.private_key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        der = self.private_key.sign(signing_input, ec.ECDSA(hashes.SHA256()))
        r, s = decode_dss_signature(der)
        return r.to_bytes(32, "big") + s.to_bytes(32, "big")


class LocalBackend:
    def __init__(self, secretsmanager: Any = None) -> None:
        if secretsmanager is None:
            from authgate.aws import secretsmanager as default_client

            secretsmanager = default_client()
        self._sm = secretsmanager

    def create_key(self, kid: str, alg: str) -> tuple[dict[str, str], dict[str, Any]]:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec, rsa

        from authgate.tokens.jwk import public_jwk

        key: Any = rsa.generate_private_key(65537, 2048) if alg == "RS256" else ec.generate_private_key(ec.SECP256R1())
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode("ascii")
        name = secret_name(kid)
        self._sm.create_secret(Name=name, SecretString=pem,
                               Description=f"authgate access-token signing key {kid} ({alg})",
                               Tags=[{"Key": "authgate-stage", "Value": get_settings().stage}])
        _loaded()[kid] = key
        return {"secret_id": name}, public_jwk(key.public_key(), kid, alg)

    def load_signer(self, record: KeyRecord) -> LocalSigner:
        key = _loaded().get(record.kid)
        if key is None:
            from cryptography.hazmat.primitives import serialization

            pem = self._sm.get_secret_value(SecretId=record.secret_id)["SecretString"]
            key = serialization.load_pem_private_key(pem.encode("ascii"), password=None)
            _loaded()[record.kid] = key
        return LocalSigner(record.kid, record.alg, key)

    def destroy(self, record: KeyRecord) -> None:
        from botocore.exceptions import ClientError

        _loaded().pop(record.kid, None)
        try:
            self._sm.delete_secret(SecretId=record.secret_id, RecoveryWindowInDays=RECOVERY_WINDOW_DAYS)
        except ClientError as exc:
            if exc.response["Error"]["Code"] not in {"ResourceNotFoundException", "InvalidRequestException"}:
                raise
