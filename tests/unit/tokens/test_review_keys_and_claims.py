"""Keys held to one encoding (RFC 7518 6.2.1.2, 6.3.1; RFC 8032 5.1.3), NumericDates finite, nonces
compared as bytes, and the DPoP replay window judged at the request's time (issue 20)."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from authgate.tokens import client_keys, jwk
from authgate.tokens.numeric_date import numeric_date


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


@pytest.mark.parametrize(("value", "expected"), [
    (1_750_000_000, 1_750_000_000), (1_750_000_000.5, 1_750_000_000.5), (0, 0),
    (float("nan"), None), (float("inf"), None), (float("-inf"), None), (True, None), (False, None),
    (10**30, None), (-1, None), ("1750000000", None), (None, None),
])
def test_numeric_date(value: Any, expected: Any) -> None:
    assert numeric_date(value) == expected


@pytest.mark.parametrize("nonce", ["é" * 43, "\ud800", "x" * 43, ""])
def test_a_nonce_of_any_text_is_compared_without_raising(nonce: str) -> None:
    from authgate.tokens.dpop_nonce import SlotNonces

    assert SlotNonces(b"k" * 32).accepts(nonce, 1_750_000_000) is False
