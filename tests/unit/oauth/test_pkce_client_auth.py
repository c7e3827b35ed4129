"""PKCE S256 (RFC 7636 Appendix B vector) and Basic credential decoding (RFC 6749 2.3.1)."""

from __future__ import annotations

import base64

import pytest

from authgate.errors import ApiError
from authgate.oauth import pkce
from authgate.oauth.client_auth import _basic


def test_rfc7636_appendix_b_vector() -> None:
    verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    assert pkce.s256(verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    assert pkce.verify(verifier, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    assert not pkce.verify(verifier, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cN")
    assert not pkce.verify(verifier, verifier, "plain")


@pytest.mark.parametrize("verifier,ok", [("a" * 42, False), ("a" * 43, True), ("a" * 128, True), ("a" * 129, False),
                                         ("-._~" * 11, True), ("a" * 42 + "+", False), ("a" * 42 + "=", False)])
def test_verifier_syntax(verifier: str, ok: bool) -> None:
    assert pkce.is_valid_verifier(verifier) is ok


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
