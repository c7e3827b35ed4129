"""authgate.tokens.jws: JWS compact serialization and ES256 r || s (RFC 7515 7.1, RFC 7518 3.4)."""

from __future__ import annotations

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from authgate.tokens.jwk import public_jwk
from authgate.tokens.jws import compact, der_to_raw, segment_json
from authgate.tokens.local_backend import LocalSigner


def test_der_to_raw_pads_short_integers_to_32_bytes() -> None:
    raw = der_to_raw(encode_dss_signature(1, 2**255 + 7))
    assert len(raw) == 64 and raw[:32] == (1).to_bytes(32, "big") and raw[32:] == (2**255 + 7).to_bytes(32, "big")


@pytest.mark.parametrize("alg", ["RS256", "ES256"])
def test_local_signer_output_verifies_with_pyjwt_and_the_published_jwk(alg: str) -> None:
    key = rsa.generate_private_key(65537, 2048) if alg == "RS256" else ec.generate_private_key(ec.SECP256R1())
    jwk = public_jwk(key.public_key(), "k1", alg)
    token = compact({"typ": "at+jwt", "alg": alg, "kid": "k1"}, {"sub": "x"}, LocalSigner("k1", alg, key))
    assert jwt.decode(token, jwt.PyJWK(jwk).key, algorithms=[alg]) == {"sub": "x"}


@pytest.mark.parametrize(("segment", "value"), [
    ("eyJhIjoxfQ", {"a": 1}),
    ("eyJhIjoxfQ==", None),      # padded: a JWS segment omits the "=" (RFC 7515 2)
    ("W10", None),               # a JSON array, not an object
    ("eyJhIjox!fQ", None),       # outside the alphabet: never silently dropped
    ("bm90anNvbg", None),        # not JSON
])
def test_segment_json(segment: str, value: object) -> None:
    assert segment_json(segment) == value
