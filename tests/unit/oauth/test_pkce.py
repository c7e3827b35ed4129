"""oauth.pkce: S256 (RFC 7636 4.6, the Appendix B vector) and the code_verifier syntax (4.1)."""

from __future__ import annotations

import pytest

from authgate.oauth import pkce


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
