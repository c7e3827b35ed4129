"""authgate.base64url: the one base64url helper, strict on decode (RFC 4648 5, RFC 7515 2)."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from authgate import base64url


@given(st.binary(max_size=200))
def test_round_trip_without_padding(data: bytes) -> None:
    text = base64url.encode(data)
    assert "=" not in text and base64url.decode(text) == data
    padded = base64.urlsafe_b64encode(data).decode()
    assert base64url.decode(padded) == data  # correct padding is accepted


@pytest.mark.parametrize("text", [
    "ab!c",      # outside the alphabet (a lenient decoder would drop it)
    "ab+/",      # standard base64, not base64url
    "a",         # a length no encoding produces
    "QR",        # non-canonical: the last character carries set unused bits ("QQ" is canonical)
    "QQ=",       # padding that does not complete a quantum
    "QQ===",     # too much padding
    "é",
])
def test_anything_but_canonical_base64url_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        base64url.decode(text)
