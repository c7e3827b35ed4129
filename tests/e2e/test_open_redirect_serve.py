"""Open redirect (RFC 9700 4.1.3, RFC 6749 10.15): redirect-URI variants of a registered URI are
never redirected to — through `authgate serve` over real HTTP (the whole matrix of
tests/functional/test_authorize.py plus backslash, whitespace and scheme tricks), and in-process
for a client registered with a host name (host case, trailing dot, default port, IDN)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.contract import ContractSession
from tests.e2e.flows import pkce_pair
from tests.functional.authorize_support import (
    OPEN_REDIRECT_MATRIX,
    Browser,
    headers_of,
    put_client,
    web_params,
)

REGISTERED = "http://127.0.0.1:8765/callback"
EXTRA_VARIANTS = [
    "http://127.0.0.1:8765\\callback",              # backslash as a path separator
    "http://evil.example\\@127.0.0.1:8765/callback",  # backslash userinfo trick
    "http:\\\\127.0.0.1:8765\\callback",            # backslashes for slashes
    "//evil.example/callback",                      # scheme-relative to another host
    "///evil.example/callback",                     # triple slash
    "http://127.0.0.1:8765/callback\t",             # tab
    "http://127.0.0.1:8765/callback\n",             # newline
    "http://127.0.0.1:8765/callback%20",            # encoded space
    "http://127.0.0.1:8765/callback%2e",            # encoded dot
    "http://127.0.0.1:8765/callback/..",            # dot-dot
    "http://127.0.0.1:8765/callback;x=1",           # path parameter
    "http://127.0.0.1:8765/callback?redirect=http://evil.example",  # nested redirect
    "javascript:alert(1)//127.0.0.1:8765/callback",  # script scheme
    "data:text/html,<script>alert(1)</script>",     # data scheme
    "http://127.0.0.1:8765/callback" + "a" * 2000,  # very long
    "http://127.0.0.1:8765/callback@evil.example",  # @ after the path
    "http://127。0。0。1:8765/callback",               # ideographic full stops (IDNA maps them to dots)
    "http://１２７.0.0.1:8765/callback",             # full-width digits
]

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("redirect_uri", OPEN_REDIRECT_MATRIX + EXTRA_VARIANTS)
def test_variant_is_never_redirected_to_through_serve(base_url: str, redirect_uri: str) -> None:
    _, challenge = pkce_pair()
    params = {"response_type": "code", "client_id": "demo-web", "redirect_uri": redirect_uri,
              "scope": "charges:read", "state": "s", "code_challenge": challenge, "code_challenge_method": "S256"}
    with ContractSession(base_url) as http:
        response = http.get("/oauth/authorize", params=params, headers={"Accept": "text/html"},
                            allow_redirects=False, timeout=30)
    assert response.status_code == 400, (redirect_uri, response.status_code)
    assert "Location" not in response.headers
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert "evil.example" not in response.text


def test_registered_uri_itself_gets_the_login_page_through_serve(base_url: str) -> None:
    _, challenge = pkce_pair()
    params = {"response_type": "code", "client_id": "demo-web", "redirect_uri": REGISTERED,
              "scope": "charges:read", "state": "s", "code_challenge": challenge, "code_challenge_method": "S256"}
    with ContractSession(base_url) as http:
        response = http.get("/oauth/authorize", params=params, headers={"Accept": "text/html"},
                            allow_redirects=False, timeout=30)
    assert response.status_code == 200 and 'name="password"' in response.text


HOST_REGISTERED = "https://app.example/cb"
HOST_VARIANTS = [
    "https://APP.example/cb",          # host case (RFC 9700 asks for exact string matching)
    "https://app.EXAMPLE/cb",
    "https://app.example./cb",         # trailing dot
    "https://app.example:443/cb",      # explicit default port
    "https://app.example/cb/",         # trailing slash
    "https://app.example/CB",          # path case
    "http://app.example/cb",           # scheme downgrade
    "https://аpp.example/cb",          # IDN homograph (Cyrillic a)
    "https://xn--pp-8cd.example/cb",   # its punycode
    "https://app.example.evil.example/cb",
    "https://evil.example/app.example/cb",
    "https://app.example%2eevil.example/cb",
]


@pytest.mark.parametrize("redirect_uri", HOST_VARIANTS)
def test_host_name_variants_are_never_redirected_to(browser: Browser, redirect_uri: str) -> None:
    put_client(client_id="host-client", redirect_uris=(HOST_REGISTERED,))
    result: dict[str, Any] = browser.get(web_params(client_id="host-client", redirect_uri=redirect_uri))
    assert result["statusCode"] == 400, (redirect_uri, result["statusCode"])
    assert "Location" not in headers_of(result)


def test_host_name_registered_uri_itself_gets_the_page(browser: Browser) -> None:
    put_client(client_id="host-client", redirect_uris=(HOST_REGISTERED,))
    page = browser.get(web_params(client_id="host-client", redirect_uri=HOST_REGISTERED, scope="charges:read"))
    assert page["statusCode"] == 200, page["statusCode"]
