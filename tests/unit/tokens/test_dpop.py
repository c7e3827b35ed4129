"""tokens.dpop and tokens.jwk's proof-key helpers: RFC 7638 thumbprints, RFC 3986 htu normalisation,
the proof checks in isolation (the functional tests drive them through the handlers)."""

from __future__ import annotations

import time

import pytest

from authgate.tokens import dpop, jwk
from tests.dpop_support import DpopKey

# RFC 7638 3.1: the example RSA key and its SHA-256 thumbprint.
RFC7638_KEY = {
    "kty": "RSA",
    "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMs"
         "tn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvR"
         "L5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzK"
         "nqDKgw",
    "e": "AQAB",
    "alg": "RS256",
    "kid": "2011-04-29",
}


def test_thumbprint_is_rfc7638s_example() -> None:
    assert jwk.thumbprint(RFC7638_KEY) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"


@pytest.mark.parametrize("alg", ["ES256", "EdDSA", "RS256", "PS256"])
def test_thumbprint_agrees_with_joserfc(alg: str) -> None:
    key = DpopKey(alg)
    assert jwk.thumbprint(key.public_jwk) == key.jkt


def test_private_and_symmetric_keys_are_not_proof_keys() -> None:
    private = dict(DpopKey().key.as_dict(private=True))
    with pytest.raises(ValueError, match="private"):
        jwk.public_proof_key(private)
    with pytest.raises(ValueError):
        jwk.public_proof_key({"kty": "oct", "k": "c2VjcmV0"})
    with pytest.raises(ValueError, match="2048"):
        from cryptography.hazmat.primitives.asymmetric import rsa

        small = rsa.generate_private_key(public_exponent=65537, key_size=1024).public_key()
        jwk.public_proof_key(jwk.public_jwk(small, "k", "RS256"))


@pytest.mark.parametrize(("uri", "normal"), [
    ("https://Server.Example.COM:443/a/./b/../c?q=1#f", "https://server.example.com/a/c"),
    ("http://127.0.0.1:80", "http://127.0.0.1/"),
    ("http://127.0.0.1:3000/oauth/%74oken", "http://127.0.0.1:3000/oauth/token"),
    ("http://h/%2f%7e", "http://h/%2F~"),
    ("http://[::1]:8080/x", "http://[::1]:8080/x"),
])
def test_htu_normalisation_rfc3986_6_2_2_and_6_2_3(uri: str, normal: str) -> None:
    assert dpop.normalized_uri(uri) == normal


@pytest.mark.parametrize("uri", ["ftp://h/x", "/relative", "http://", "http://h:notaport/"])
def test_what_is_not_an_http_uri(uri: str) -> None:
    assert dpop.normalized_uri(uri) is None


def test_a_valid_proof_and_what_check_proof_returns() -> None:
    key = DpopKey()
    now = int(time.time())
    proof = dpop.check_proof(key.proof("GET", "https://h/x", iat=now, jti="j1", access_token="t"),
                             method="GET", uri="https://h/x?y", now=now, leeway=60, access_token="t")
    assert (proof.jkt, proof.jti, proof.iat, proof.alg, proof.nonce) == (key.jkt, "j1", now, "ES256", None)


def test_a_cached_header_does_not_excuse_a_bad_signature() -> None:
    key = DpopKey()
    now = int(time.time())
    good = key.proof("GET", "https://h/x", iat=now)
    dpop.check_proof(good, method="GET", uri="https://h/x", now=now, leeway=60)
    head, payload, _ = good.split(".")
    forged = key.proof("GET", "https://h/y", iat=now).split(".")[2]
    with pytest.raises(dpop.ProofError, match="signature"):
        dpop.check_proof(f"{head}.{payload}.{forged}", method="GET", uri="https://h/x", now=now, leeway=60)


def test_a_proof_too_long_is_refused_before_parsing() -> None:
    with pytest.raises(dpop.ProofError, match="compact JWS"):
        dpop.check_proof("a" * 9000 + ".b.c", method="GET", uri="https://h/x", now=0, leeway=60)


@pytest.mark.parametrize(("leeway", "ahead", "accepted"), [
    (0, 10, True), (0, 11, False),  # FAPI 2.0 5.3.2.1 item 13: 10 s ahead passes whatever the leeway
    (30, 30, True), (30, 31, False),  # otherwise the leeway decides ...
    (120, 60, True), (120, 61, False),  # ... up to 60 s, never more
])
def test_how_far_ahead_iat_may_be(leeway: int, ahead: int, accepted: bool) -> None:
    now, key = int(time.time()), DpopKey()
    proof = key.proof("GET", "https://h/x", iat=now + ahead)
    if accepted:
        assert dpop.check_proof(proof, method="GET", uri="https://h/x", now=now, leeway=leeway).iat == now + ahead
    else:
        with pytest.raises(dpop.ProofError, match=r"issued in the future"):
            dpop.check_proof(proof, method="GET", uri="https://h/x", now=now, leeway=leeway)
