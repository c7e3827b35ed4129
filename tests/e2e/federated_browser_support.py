"""The federated sign-in browser tests' helpers (tests/e2e/test_*_browser.py): demo-web's authorization request, a
browser context that notes each request to its redirect URI (nothing listens there: the code is read from the URL),
and a person's sign-in at panva's oidc-provider."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests

from tests.document_server import DocumentServer, document_server
from tests.e2e.upstream_oidc_support import UpstreamProvider

WEB_REDIRECT = "http://127.0.0.1:8765/callback"


@contextmanager
def watching_client(chromium_browser: Any) -> Iterator[Any]:
    """A fresh context that trusts the provider's test certificate, noting each request to the client's redirect
    URI."""
    context = chromium_browser.new_context(ignore_https_errors=True)
    context.at_client = []
    context.codes_taken = set()
    context.on("request", lambda request: context.at_client.append(request.url)
               if request.url.startswith(WEB_REDIRECT + "?") else None)
    try:
        yield context
    finally:
        context.close()


def authorize_url(base: str) -> tuple[str, str]:
    """demo-web's authorization request (PKCE) and its verifier."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = urlencode({"response_type": "code", "client_id": "demo-web", "redirect_uri": WEB_REDIRECT,
                       "scope": "openid charges:read", "state": "st-1", "code_challenge": challenge,
                       "code_challenge_method": "S256"})
    return f"{base}/oauth/authorize?{query}", verifier


def code_at_client(page: Any) -> str:
    """The code of the next redirect to the client (within 30 s): Chromium may request a failed navigation's URL
    again, so a code already taken is skipped."""
    seen: list[str] = page.context.at_client
    taken: set[str] = page.context.codes_taken
    for _ in range(300):
        fresh = [url for url in seen if parse_qs(urlsplit(url).query)["code"][0] not in taken]
        if fresh:
            params = parse_qs(urlsplit(fresh[0]).query)
            assert params["state"] == ["st-1"], params
            taken.add(params["code"][0])
            return params["code"][0]
        page.wait_for_timeout(100)
    raise AssertionError(f"not at the client: {page.url}")


def sign_in_at_provider(page: Any, provider: UpstreamProvider, login: str) -> None:
    page.wait_for_url(f"{provider.issuer}/interaction/*", timeout=30_000)
    page.fill("input[name=login]", login)
    page.click("button[type=submit]")


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    """The test CA and a certificate for 127.0.0.1 (the provider serves it): a test module imports it to use it."""
    with document_server(tmp_path_factory.mktemp("tls")) as server:
        yield server


def tokens(base: str, code: str, verifier: str) -> dict[str, Any]:
    """demo-web's tokens for `code` (its PKCE `verifier`)."""
    answer = requests.post(f"{base}/oauth/token", auth=("demo-web", "demo-web-secret"), timeout=20, data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": WEB_REDIRECT, "code_verifier": verifier})
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def claims(token: str) -> dict[str, Any]:
    """A JWT's claims, unchecked (the test reads what authgate issued)."""
    payload = token.split(".")[1]
    return dict(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))))
