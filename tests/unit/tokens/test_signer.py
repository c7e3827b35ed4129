"""JWS compact serialization, ES256 DER -> r||s, public-only JWKs (RFC 7515, 7517, 7518)."""

from __future__ import annotations

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from authgate.tokens.jws import compact, der_to_raw
from authgate.tokens.local_backend import LocalSigner
from authgate.tokens.public_jwk import only_public, public_jwk


def test_der_to_raw_pads_short_integers_to_32_bytes() -> None:
    raw = der_to_raw(encode_dss_signature(1, 2**255 + 7))
    assert len(raw) == 64 and raw[:32] == (1).to_bytes(32, "big") and raw[32:] == (2**255 + 7).to_bytes(32, "big")


@pytest.mark.parametrize("alg", ["RS256", "ES256"])
def test_local_signer_output_verifies_with_pyjwt_and_the_published_jwk(alg: str) -> None:
    key = rsa.generate_private_key(65537, 2048) if alg == "RS256" else ec.generate_private_key(ec.SECP256R1())
    jwk = public_jwk(key.public_key(), "k1", alg)
    token = compact({"typ": "at+jwt", "alg": alg, "kid": "k1"}, {"sub": "x"}, LocalSigner("k1", alg, key))
    assert jwt.decode(token, jwt.PyJWK(jwk).key, algorithms=[alg]) == {"sub": "x"}
    assert set(jwk) == ({"kty", "kid", "alg", "use", "n", "e"} if alg == "RS256"
                        else {"kty", "kid", "alg", "use", "crv", "x", "y"})


def test_only_public_drops_private_members() -> None:
    leaked = {"kty": "RSA", "kid": "k", "alg": "RS256", "use": "sig", "n": "AQAB", "e": "AQAB",
              "d": "secret", "p": "secret", "q": "secret", "dp": "s", "dq": "s", "qi": "s"}
    assert only_public(leaked) == {"kty": "RSA", "kid": "k", "alg": "RS256", "use": "sig", "n": "AQAB", "e": "AQAB"}
    assert only_public({"kty": "oct", "k": "secret"}) == {}
