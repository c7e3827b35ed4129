"""Clients that register themselves (docs/agents.md): their authorization requests, and dynamic
registration (RFC 7591, RFC 7592) through the token function."""

from __future__ import annotations

import json
from typing import Any

from authgate_cli.local.events import HttpRequest, build_event
from tests.conftest import Invoke
from tests.demo import CHALLENGE
from tests.functional.token_support import headers_of

# The redirect URI the tests' self-registered clients use (a loopback address: RFC 8252 7.3).
REDIRECT = "http://127.0.0.1:9/callback"
JSON = "application/json"


def params(client_id: str, **overrides: str) -> list[tuple[str, str]]:
    """An authorization request of `client_id` (PKCE, state s-1) to REDIRECT; overrides change or add."""
    base = {"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT, "state": "s-1",
            "code_challenge": CHALLENGE, "code_challenge_method": "S256", **overrides}
    return list(base.items())


def query(client_id: str, **extra: str) -> list[tuple[str, str]]:
    """The same request with state s, extra parameters appended."""
    return [("response_type", "code"), ("client_id", client_id), ("redirect_uri", REDIRECT), ("state", "s"),
            ("code_challenge", CHALLENGE), ("code_challenge_method", "S256"), *extra.items()]


def call(invoke: Invoke, method: str, path: str, body: Any = None, token: str | None = None,
         resource: str = "/oauth/register", source_ip: str = "198.51.100.7") -> dict[str, Any]:
    """A registration request (RFC 7591 3.1, RFC 7592 2) through the token function."""
    headers = [("Host", "127.0.0.1:3000"), ("Content-Type", JSON)]
    if token is not None:
        headers.append(("Authorization", f"Bearer {token}"))
    data = json.dumps(body).encode() if body is not None else b""
    params = {"client_id": path.rsplit("/", 1)[1]} if resource != "/oauth/register" else None
    request = HttpRequest(method, path, "", headers, data, source_ip=source_ip)
    return invoke("token", build_event(request, resource=resource, path_params=params))


def register(invoke: Invoke, **members: Any) -> dict[str, Any]:
    """Register a code-flow client with these metadata members changed."""
    doc = {"client_name": "CLI Agent", "redirect_uris": [REDIRECT], "grant_types": ["authorization_code",
                                                                                   "refresh_token"], **members}
    return call(invoke, "POST", "/oauth/register", doc)


def without_request_id(result: dict[str, Any]) -> dict[str, str]:
    """The headers of a result that has an x-request-id, without it."""
    headers = headers_of(result)
    assert headers.pop("x-request-id")
    return headers
