"""authgate.tokens.local_backend: keys kept in Secrets Manager as private JWKs; older PEM secrets still load."""

from __future__ import annotations

import json

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from authgate.stores.signing_keys import KeyRecord
from authgate.tokens.jws import compact
from authgate.tokens.local_backend import LocalBackend, secret_name


def record(kid: str, alg: str, secret_id: str) -> KeyRecord:
    return KeyRecord(kid=kid, state="current", alg=alg, backend="local", public_jwk="{}", created_at=1,
                     activates_at=1, secret_id=secret_id)


@pytest.mark.parametrize("alg", ["RS256", "ES256"])
def test_a_created_key_is_stored_as_a_private_jwk_and_loads_cold(aws: None, alg: str) -> None:
    from authgate import caches
    from authgate.aws import secretsmanager

    refs, public = LocalBackend().create_key("k1", alg)
    stored = json.loads(secretsmanager().get_secret_value(SecretId=refs["secret_id"])["SecretString"])
    assert refs["secret_id"] == secret_name("k1") and stored["kid"] == "k1" and "d" in stored
    caches.reset()  # a cold process: the key comes from the secret
    signer = LocalBackend().load_signer(record("k1", alg, refs["secret_id"]))
    token = compact({"alg": alg, "kid": "k1"}, {"sub": "x"}, signer)
    assert jwt.decode(token, jwt.PyJWK(public).key, algorithms=[alg]) == {"sub": "x"}


@pytest.mark.parametrize("alg", ["RS256", "ES256"])
def test_a_pem_secret_from_before_jwks_still_signs(aws: None, alg: str) -> None:
    from authgate.aws import secretsmanager

    key = rsa.generate_private_key(65537, 2048) if alg == "RS256" else ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    secretsmanager().create_secret(Name="authgate/local/signing/old", SecretString=pem)
    signer = LocalBackend().load_signer(record("old", alg, "authgate/local/signing/old"))
    token = compact({"alg": alg, "kid": "old"}, {"sub": "x"}, signer)
    assert jwt.decode(token, key.public_key(), algorithms=[alg]) == {"sub": "x"}
