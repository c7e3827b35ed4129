"""The bearer guard (RFC 6750, RFC 9068) on crafted access tokens, through a mounted route.

Tokens that used to end in a 500 (RecursionError in a header or the claims, NaN or an infinite
exp that is not JSON), in an extra second of life, or in a second encoding of one token are
refused with the whole invalid_token response. Raw segments are signed by the current key by
hand, where a JOSE library would refuse to write them.
"""

from __future__ import annotations

import base64
import json

import pytest

from authgate.clock import ManualClock
from tests.bearer_requests import (
    assert_invalid_token,
    bearer,
    claims_now,
    current_header,
    event,
    issue,
    seed_client,
)
from tests.conftest import START
from tests.crafted_inputs import DEEP

LEEWAY = 120


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def raw_token(header: bytes, payload: bytes) -> str:
    """header.payload.signature over raw segments, signed by the current key (what a key holder could send)."""
    from authgate.tokens.current_signer import current_signer

    signing_input = f"{b64(header)}.{b64(payload)}"
    return f"{signing_input}.{b64(current_signer().sign(signing_input.encode()))}"


def header_bytes() -> bytes:
    return json.dumps(current_header()).encode()


@pytest.mark.parametrize("header", [b'{"alg":' + DEEP.encode() + b"}", b'{"alg":"RS256","x":' + DEEP.encode() + b"}"])
def test_a_deeply_nested_token_header_is_invalid_token(keys: None, clock: ManualClock, header: bytes) -> None:
    token = f"{b64(header)}.{b64(b'{}')}.{b64(b'sig')}"
    assert_invalid_token(event(headers=bearer(token)), "The access token is not a JWT.")


@pytest.mark.parametrize("payload", [
    '{"a":' + DEEP + "}",                                         # RecursionError in the claims
    json.dumps(claims_now(START)).replace(f'"exp": {START + 900}', '"exp": NaN'),  # not JSON
    json.dumps(claims_now(START)).replace(f'"exp": {START + 900}', '"exp": 1e400'),  # infinite
    json.dumps(claims_now(START)).replace('"sub": "demo-service"', '"sub": "demo-service", "sub": "x"'),
])
def test_a_signed_payload_that_is_not_strict_json_is_invalid_token(keys: None, clock: ManualClock,
                                                                   payload: str) -> None:
    token = raw_token(header_bytes(), payload.encode())
    assert_invalid_token(event(headers=bearer(token)), "The token claims are not a JSON object.")


def test_a_token_is_refused_at_exactly_exp_plus_leeway(keys: None, clock: ManualClock) -> None:
    seed_client()
    token = issue().token
    clock.advance(900 + LEEWAY - 1)
    from tests.bearer_requests import call

    assert call(event(headers=bearer(token)))[0] == 200
    clock.advance(1)  # RFC 7519 4.1.4: "on or after" the expiry time (plus the leeway) is refused
    assert_invalid_token(event(headers=bearer(token)), "The access token expired.")


def test_a_padded_segment_and_a_utf16_header_are_not_a_jwt(keys: None, clock: ManualClock) -> None:
    seed_client()
    good = raw_token(header_bytes(), json.dumps(claims_now(START)).encode())
    head, payload, signature = good.split(".")
    padded = signature + "=" * (-len(signature) % 4)
    assert padded != signature
    assert_invalid_token(event(headers=bearer(f"{head}.{payload}.{padded}")), "The access token is not a JWT.")
    utf16 = raw_token(b"\xff\xfe" + header_bytes().decode().encode("utf-16-le"),
                      json.dumps(claims_now(START)).encode())
    assert_invalid_token(event(headers=bearer(utf16)), "The access token is not a JWT.")
