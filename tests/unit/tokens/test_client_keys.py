"""tokens.client_keys: a client's registered JWK Set (RFC 7591 2 jwks): public keys only, FAPI 2.0 5.4 types."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from authgate import base64url
from authgate.tokens import jwk
from authgate.tokens.client_keys import MAX_KEYS, InvalidJwks, candidates, validate


def ec_jwk(kid: str | None = "e1", **extra: Any) -> dict[str, Any]:
    key = jwk.public_jwk(ec.generate_private_key(ec.SECP256R1()).public_key(), kid or "x", "ES256")
    if kid is None:
        key.pop("kid")
    return {**key, **extra}


def test_public_keys_are_kept_as_registered() -> None:
    key = ec_jwk()
    assert validate({"keys": [key]}) == (jwk.only_public(key),)


@pytest.mark.parametrize(("document", "reason"), [
    ([], 'a JWK Set is a JSON object {"keys": [...]} (RFC 7517 5)'),
    ({"keys": []}, "the JWK Set has no keys"),
    ({"keys": ["x"]}, "key 0 is not a JSON object"),
    ({"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}, "key 0 holds the private member 'k'"),
    ({"keys": [{"kty": "EC", "crv": "P-384", "x": "a", "y": "b"}]}, "key 0: kty 'EC' crv 'P-384' is not supported"),
])
def test_a_set_that_may_not_be_registered_says_which_key_and_why(document: Any, reason: str) -> None:
    with pytest.raises(InvalidJwks) as info:
        validate(document)
    assert str(info.value).startswith(reason)


def test_use_alg_kid_and_size_rules() -> None:
    with pytest.raises(InvalidJwks, match="use must be sig"):
        validate({"keys": [ec_jwk(use="enc")]})
    with pytest.raises(InvalidJwks, match="alg 'RS256' is not accepted"):
        validate({"keys": [ec_jwk(alg="RS256")]})
    with pytest.raises(InvalidJwks, match="kid 'e1' is used twice"):
        validate({"keys": [ec_jwk(), ec_jwk()]})
    small = jwk.public_jwk(rsa.generate_private_key(public_exponent=65537, key_size=1024).public_key(), "r", "PS256")
    with pytest.raises(InvalidJwks, match="RSA keys must have at least 2048 bits"):
        validate({"keys": [small]})
    with pytest.raises(InvalidJwks, match=f"more than {MAX_KEYS} keys"):
        validate({"keys": [ec_jwk(kid=f"k{i}") for i in range(MAX_KEYS + 1)]})


def test_candidates_follow_kid_then_the_algorithms_key_type() -> None:
    a, b = ec_jwk("a"), ec_jwk("b", alg="ES256")
    raw = ed25519.Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    ed = {"kty": "OKP", "crv": "Ed25519", "kid": "o", "x": base64url.encode(raw)}
    keys = [a, b, ed]
    assert len(list(candidates(keys, "ES256", "b"))) == 1
    assert len(list(candidates(keys, "ES256", None))) == 2
    assert len(list(candidates(keys, "EdDSA", None))) == 1
    assert list(candidates(keys, "PS256", None)) == []
    assert list(candidates(keys, "ES256", "missing")) == []
