"""Every kind of HTML page names the icon, GET /assets/icon.svg, so that no browser asks for /favicon.ico (which
lies outside the API behind a stage path, and is a 404 elsewhere: an error in the browser's console)."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.http.pages.icon import ICON
from tests.bearer_requests import event
from tests.functional.authorize_support import Browser, headers_of, web_params

ICON_LINK = f'<link rel="icon" type="image/svg+xml" href="../assets/icon.svg?v={ICON.version()}">'


def test_the_icon_is_served_immutable_with_its_digest(aws: None, invoke: Any) -> None:
    result = invoke("jwks", event("GET", "/assets/icon.svg", headers={"Accept": ["image/svg+xml,*/*"]}))
    assert result["statusCode"] == 200
    assert headers_of(result) == {"Content-Type": "image/svg+xml", "Cache-Control": "public, max-age=31536000, immutable",
                       "Content-Security-Policy": "default-src 'none'", "X-Content-Type-Options": "nosniff",
                       "ETag": f'"{ICON.version()}"', "x-request-id": "req-1"}
    assert result["body"] == ICON.text() and result["body"].startswith("<svg ")


@pytest.mark.parametrize(("path", "query"), [
    ("/oauth/authorize", "SIGN_IN"),  # the sign-in and consent page
    ("/oauth/authorize", "client_id=nobody"),  # an error before the client is known: a page, never a redirect
    ("/oauth/account", ""),
    ("/oauth/forgot-password", ""),
    ("/oauth/device", ""),
    ("/oauth/logout", ""),
    ("/oauth/approve", "token=unknown"),
])
def test_every_page_of_the_authorize_function_names_the_icon(browser: Browser, path: str, query: str) -> None:
    from urllib.parse import urlencode

    result = browser.get_raw(urlencode(web_params()) if query == "SIGN_IN" else query, path=path)
    assert headers_of(result)["Content-Type"] == "text/html; charset=utf-8"
    head = result["body"].split("</head>", 1)[0]
    assert ICON_LINK in head, head


def test_a_problem_page_names_the_icon(aws: None, invoke: Any) -> None:
    problem = {**event("GET", "/problems/invoice_locked", headers={"Accept": ["text/html"]}),
               "resource": "/problems/{code}", "pathParameters": {"code": "invoice_locked"}}
    result = invoke("jwks", problem)
    assert (result["statusCode"], headers_of(result)["Content-Type"]) == (200, "text/html; charset=utf-8")
    assert ICON_LINK in result["body"].split("</head>", 1)[0]
