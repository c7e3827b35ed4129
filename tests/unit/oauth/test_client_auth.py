"""oauth.client_auth: Basic credential decoding (RFC 6749 2.3.1)."""

from __future__ import annotations

import base64

import pytest

from authgate.errors import ApiError
from authgate.oauth.client_auth import _basic


def b(raw: str) -> str:
    return "Basic " + base64.b64encode(raw.encode()).decode()


def test_basic_parts_are_form_urldecoded() -> None:
    assert _basic(b("my%3Aclient:p%40ss+word%2B")) == ("my:client", "p@ss word+")
    assert _basic(b("id:sec:ret")) == ("id", "sec:ret")
    assert _basic(b("id:")) == ("id", "")


@pytest.mark.parametrize("header", ["Basic ", "Basic @@@", b("no-colon"), "Basic " + base64.b64encode(b"\xff:x").decode()])
def test_malformed_basic_is_invalid_request(header: str) -> None:
    with pytest.raises(ApiError) as info:
        _basic(header)
    assert info.value.code == "invalid_request"
