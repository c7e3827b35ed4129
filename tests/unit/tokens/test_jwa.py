"""authgate.tokens.jwa: RS256 and ES256 verification (RFC 7518 3.3, 3.4) agrees with PyJWT's."""

from __future__ import annotations

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from authgate.tokens import jwa
from authgate.tokens.jwk import public_jwk, public_key

KEYS = {"RS256": rsa.generate_private_key(65537, 2048), "ES256": ec.generate_private_key(ec.SECP256R1())}


@pytest.mark.parametrize("alg", sorted(KEYS))
def test_verifies_what_pyjwt_signs_and_nothing_else(alg: str) -> None:
    private = KEYS[alg]
    key = public_key(public_jwk(private.public_key(), "k1", alg))
    token = jwt.encode({"sub": "x"}, private, algorithm=alg)
    head, body, tail = token.split(".")
    message, signature = f"{head}.{body}".encode(), jwt.utils.base64url_decode(tail)
    assert jwa.verify(alg, key, message, signature)
    assert not jwa.verify(alg, key, message + b"x", signature)
    assert not jwa.verify(alg, key, message, signature[:-1] + bytes([signature[-1] ^ 1]))
    assert not jwa.verify(alg, key, message, signature + b"\x00")  # ES256: r || s is exactly 64 bytes
    other = "ES256" if alg == "RS256" else "RS256"
    assert not jwa.verify(other, key, message, signature)  # an algorithm the key is not for
    assert not jwa.verify("HS256", key, message, signature)
