"""clients.origins: the web origins (RFC 6454 6.2) of a public client's redirect URIs, and their record ids."""

from __future__ import annotations

import pytest

from authgate.clients.model import Client
from authgate.clients.origins import ORIGIN_PREFIX, browser_origins, origin_of, origin_record_id


@pytest.mark.parametrize(("uri", "origin"), [
    ("https://App.Example/cb?x=1", "https://app.example"),
    ("https://app.example:443/cb", "https://app.example"),
    ("http://127.0.0.1:8765/callback", "http://127.0.0.1:8765"),
    ("http://[::1]:3000/cb", "http://[::1]:3000"),
    ("com.example.app:/oauth2redirect", None),  # a native app's private-use scheme (RFC 8252 7.1)
    ("https://app.example:99999/cb", None),
    ("/relative", None),
])
def test_the_origin_of_a_uri(uri: str, origin: str | None) -> None:
    assert origin_of(uri) == origin


def test_only_a_public_client_has_browser_origins() -> None:
    spa = Client(client_id="spa", tenant_id="t", environment="local", client_type="public", secret_hash=None,
                 redirect_uris=("https://spa.example/a", "https://spa.example/b", "com.example.app:/cb"),
                 grant_types=("authorization_code",), scopes=())
    assert browser_origins(spa) == {"https://spa.example"}
    assert browser_origins(spa._replace(client_type="confidential")) == set()
    assert origin_record_id("local", "https://spa.example") == ORIGIN_PREFIX + "local https://spa.example"
