"""authgate.tokens.jwk: keys as JWKs both ways (RFC 7517 4, RFC 7518 6.2, 6.3), public ones never leaking, and
held to one encoding (RFC 7518 6.2.1.2, 6.3.1; RFC 8032 5.1.3): no Ed25519 key of small order."""

from __future__ import annotations

import base64
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from authgate.tokens import client_keys, jwk

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


# --------------------------------------------------------------------------- one encoding per key
def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


P = 2**255 - 19
# libsodium's list of Ed25519 encodings of small order (the eight points, two with either sign of x=0).
SMALL_ORDER = [
    "0100000000000000000000000000000000000000000000000000000000000000",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000080",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
    "0100000000000000000000000000000000000000000000000000000000000080",  # identity, sign bit set
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",  # order 2, sign bit set
]
# y >= p: no canonical encoding (p + 1 is a second text for the identity, RFC 8032 5.1.3 step 1).
NON_CANONICAL = [(P + 1).to_bytes(32, "little").hex(), (2**255 - 1).to_bytes(32, "little").hex()]


def okp(x: bytes) -> dict[str, Any]:
    return {"kty": "OKP", "crv": "Ed25519", "x": b64(x)}


@pytest.mark.parametrize("hex_key", SMALL_ORDER + NON_CANONICAL)
def test_ed25519_keys_of_small_order_or_non_canonical_are_refused(hex_key: str) -> None:
    with pytest.raises(ValueError):
        jwk.public_key(okp(bytes.fromhex(hex_key)))
    with pytest.raises(ValueError):
        jwk.public_proof_key(okp(bytes.fromhex(hex_key)))
    with pytest.raises(client_keys.InvalidJwks):
        client_keys.validate({"keys": [okp(bytes.fromhex(hex_key))]})


def test_the_identity_key_would_verify_any_message() -> None:
    """Why: cryptography (OpenSSL) accepts R = identity, S = 0 under the identity key."""
    key = ed25519.Ed25519PublicKey.from_public_bytes(bytes.fromhex(SMALL_ORDER[0]))
    key.verify(bytes.fromhex(SMALL_ORDER[0]) + bytes(32), b"any message at all")


def test_an_ordinary_ed25519_key_loads() -> None:
    raw = ed25519.Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    assert jwk.public_key(okp(raw)).public_bytes_raw() == raw


def rsa_jwk(e: int = 65537, pad_n: bool = False, e_text: str | None = None) -> dict[str, Any]:
    numbers = rsa.generate_private_key(e, 2048).public_key().public_numbers()
    n = numbers.n.to_bytes(256, "big")
    return {"kty": "RSA", "n": b64((b"\x00" if pad_n else b"") + n),
            "e": e_text or b64(numbers.e.to_bytes((numbers.e.bit_length() + 7) // 8, "big"))}


@pytest.mark.parametrize("key", [
    pytest.param(lambda: rsa_jwk(3), id="e=3"),
    pytest.param(lambda: rsa_jwk(e_text=b64(b"\x00\x01\x00\x01")), id="e with a leading zero"),
    pytest.param(lambda: rsa_jwk(pad_n=True), id="n with a leading zero"),
    pytest.param(lambda: {**rsa_jwk(), "n": rsa_jwk()["n"] + "="}, id="padded n"),
])
def test_rsa_keys_must_be_canonical_with_e_65537(key: Any) -> None:
    with pytest.raises(ValueError):
        jwk.public_key(key())
    with pytest.raises(client_keys.InvalidJwks):
        client_keys.validate({"keys": [key()]})


def ec_jwk(x_len: int = 32) -> dict[str, Any]:
    numbers = ec.generate_private_key(ec.SECP256R1()).public_key().public_numbers()
    while numbers.x.bit_length() > 248 and x_len < 32:  # a 31-octet x needs a leading zero byte
        numbers = ec.generate_private_key(ec.SECP256R1()).public_key().public_numbers()
    return {"kty": "EC", "crv": "P-256", "x": b64(numbers.x.to_bytes(x_len, "big")),
            "y": b64(numbers.y.to_bytes(32, "big"))}


@pytest.mark.parametrize("x_len", [31, 33])
def test_ec_coordinates_must_be_exactly_32_octets(x_len: int) -> None:
    key = ec_jwk(x_len)
    with pytest.raises(ValueError):
        jwk.public_key(key)
    assert jwk.public_key(ec_jwk(32)) is not None
