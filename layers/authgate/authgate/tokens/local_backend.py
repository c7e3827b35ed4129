"""Local signing backend: the private key lives in Secrets Manager, signing happens in memory.

Secret name `authgate/<stack>/signing/<kid>` (the functions' IAM policies are scoped to that
prefix), tagged `authgate-stack=<stack>`: named by the CloudFormation stack, not the stage, so two
stacks of one stage in one account never share keys. The secret is the key's private JWK
(tokens.jwk); keys made before that are PKCS#8 PEM, and still load. A warm function fetches a key
once and keeps the loaded key object; signing is then a local RSA/ECDSA operation with no network
call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from authgate import aws
from authgate.caches import cached
from authgate.settings import get_settings
from authgate.tokens import jwk
from authgate.tokens.jws import der_to_raw

if TYPE_CHECKING:
    from authgate.stores.signing_keys import KeyRecord


@cached
def _loaded() -> dict[str, Any]:
    """Loaded private keys by kid; a process signs with one or two keys in its lifetime.

    A warm cache like the others, so `caches.reset()` makes a process truly cold again.
    """
    return {}


# Deleted secrets stay recoverable this long (Secrets Manager allows 7-30 days).
RECOVERY_WINDOW_DAYS = 7


def secret_name(kid: str) -> str:
    return f"authgate/{get_settings().stack}/signing/{kid}"


@dataclass(frozen=True)
class LocalSigner:
    kid: str
    alg: str
    private_key: Any

    def sign(self, signing_input: bytes) -> bytes:
        # cryptography on first use, after the AWS clients are built and frozen (tokens.jwa says why);
        # each algorithm imports its own key type's module (docs/decisions.md, measured shortcuts).
        from cryptography.hazmat.primitives import hashes

        if self.alg == "RS256":
            from cryptography.hazmat.primitives.asymmetric import padding

            signature: bytes = self.private_key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
            return signature
        from cryptography.hazmat.primitives.asymmetric import ec

        return der_to_raw(self.private_key.sign(signing_input, ec.ECDSA(hashes.SHA256())))


class LocalBackend:
    def __init__(self, secretsmanager: Any = None) -> None:
        if secretsmanager is None:
            secretsmanager = aws.secretsmanager()
        self._sm = secretsmanager

    def create_key(self, kid: str, alg: str) -> tuple[dict[str, str], dict[str, Any]]:
        # The rotation function loads both key types' modules only to create a key (docs/decisions.md, measured shortcuts).
        from cryptography.hazmat.primitives.asymmetric import ec, rsa

        key: Any = rsa.generate_private_key(65537, 2048) if alg == "RS256" else ec.generate_private_key(ec.SECP256R1())
        name = secret_name(kid)
        self._sm.create_secret(Name=name, SecretString=json.dumps(jwk.private_jwk(key, kid, alg)),
                               Description=f"authgate token signing key {kid} ({alg})",
                               Tags=[{"Key": "authgate-stack", "Value": get_settings().stack},
                                     {"Key": "authgate-stage", "Value": get_settings().stage}])
        _loaded()[kid] = key
        return {"secret_id": name}, jwk.public_jwk(key.public_key(), kid, alg)

    def load_signer(self, record: KeyRecord) -> LocalSigner:
        key = _loaded().get(record.kid)
        if key is None:
            key = _private_key(self._sm.get_secret_value(SecretId=record.secret_id)["SecretString"])
            _loaded()[record.kid] = key
        return LocalSigner(record.kid, record.alg, key)

    def destroy(self, record: KeyRecord) -> None:
        _loaded().pop(record.kid, None)
        try:
            self._sm.delete_secret(SecretId=record.secret_id, RecoveryWindowInDays=RECOVERY_WINDOW_DAYS)
        except ClientError as exc:
            if exc.response["Error"]["Code"] not in {"ResourceNotFoundException", "InvalidRequestException"}:
                raise


def _private_key(secret: str) -> Any:
    """The key a secret holds: a private JWK, or the PKCS#8 PEM of a key made before JWKs."""
    if secret.lstrip().startswith("-----BEGIN"):
        # Only a key stored as PEM needs cryptography's serialization (docs/decisions.md, measured shortcuts).
        from cryptography.hazmat.primitives import serialization

        # Unchecked, as tokens.jwk.private_key says why: the key is ours.
        return serialization.load_pem_private_key(secret.encode("ascii"), password=None,
                                                  unsafe_skip_rsa_key_validation=True)
    return jwk.private_key(json.loads(secret))
