"""Redirect URI syntax (RFC 6749 3.1.2) and the schemes of self-registered clients (RFC 8252 7)."""

from __future__ import annotations

import pytest

from authgate.oauth.redirect_uris import well_formed_uri


@pytest.mark.parametrize("uri, ok", [
    ("https://app.example/cb", True),
    ("com.example.app:/cb", True),
    ("http://127.0.0.1:8765/callback?x=1", True),
    ("https://app.example/cb#f", False),
    ("/cb", False),
    ("https://app.example/c b", False),
    ("https://app.example/%zz", False),
    ("https://app.example:port/", False),
    ("https://app.example/\u00e9", False),
    ("", False),
])
def test_well_formed_uri(uri: str, ok: bool) -> None:
    assert well_formed_uri(uri) is ok
