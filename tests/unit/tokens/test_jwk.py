"""authgate.tokens.jwk: keys as JWKs both ways (RFC 7517 4, RFC 7518 6.2, 6.3), public ones never leaking."""

from __future__ import annotations

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from authgate.tokens import jwk

KEYS = {"RS256": rsa.generate_private_key(65537, 2048), "ES256": ec.generate_private_key(ec.SECP256R1())}


@pytest.mark.parametrize("alg", sorted(KEYS))
def test_public_jwk_members_and_round_trip(alg: str) -> None:
    published = jwk.public_jwk(KEYS[alg].public_key(), "k1", alg)
    assert set(published) == ({"kty", "kid", "alg", "use", "n", "e"} if alg == "RS256"
                              else {"kty", "kid", "alg", "use", "crv", "x", "y"})
    assert jwk.public_jwk(jwk.public_key(published), "k1", alg) == published
    # PyJWT, as an outside library, reads the same key.
    assert jwt.PyJWK(published).key.public_numbers() == KEYS[alg].public_key().public_numbers()


@pytest.mark.parametrize("alg", sorted(KEYS))
def test_private_jwk_round_trip_signs_with_the_same_key(alg: str) -> None:
    private = jwk.private_jwk(KEYS[alg], "k1", alg)
    assert jwk.only_public(private) == jwk.public_jwk(KEYS[alg].public_key(), "k1", alg)
    loaded = jwk.private_key(private)
    assert loaded.private_numbers() == KEYS[alg].private_numbers()
    token = jwt.encode({"sub": "x"}, loaded, algorithm=alg)  # PyJWT signs with the loaded key
    assert jwt.decode(token, KEYS[alg].public_key(), algorithms=[alg]) == {"sub": "x"}


def test_only_public_drops_private_members() -> None:
    leaked = {"kty": "RSA", "kid": "k", "alg": "RS256", "use": "sig", "n": "AQAB", "e": "AQAB",
              "d": "secret", "p": "secret", "q": "secret", "dp": "s", "dq": "s", "qi": "s"}
    assert jwk.only_public(leaked) == {"kty": "RSA", "kid": "k", "alg": "RS256", "use": "sig", "n": "AQAB", "e": "AQAB"}
    assert jwk.only_public({"kty": "oct", "k": "secret"}) == {}


@pytest.mark.parametrize("bad", [{"kty": "oct", "k": "AA"}, {"kty": "EC", "crv": "P-384", "x": "AA", "y": "AA"},
                                 {"kty": "RSA", "n": 5, "e": "AQAB"}, {"kty": "RSA", "n": "a!b", "e": "AQAB"}])
def test_unsupported_or_malformed_jwks_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises((TypeError, ValueError)):
        jwk.public_key(bad)
    with pytest.raises((TypeError, ValueError)):
        jwk.private_key(bad)
