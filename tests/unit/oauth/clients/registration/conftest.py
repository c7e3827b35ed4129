"""Requests for the registration endpoints, as the local gateway builds them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from authgate.http.request import Request
from authgate_cli.local.events import HttpRequest, build_event

REDIRECT = "http://127.0.0.1:9/callback"


def json_request(method: str, body: Any = None, *, client_id: str | None = None, token: str | None = None,
                 content_type: str = "application/json", raw: bytes | None = None) -> Request:
    """`method` on /oauth/register (or, with `client_id`, its configuration URI) with a JSON body."""
    headers = [("Host", "127.0.0.1:3000"), ("Content-Type", content_type)]
    if token is not None:
        headers.append(("Authorization", f"Bearer {token}"))
    path = "/oauth/register" if client_id is None else f"/oauth/register/{client_id}"
    data = raw if raw is not None else (b"" if body is None else json.dumps(body).encode())
    event = build_event(HttpRequest(method, path, "", headers, data),
                        resource="/oauth/register" if client_id is None else "/oauth/register/{client_id}",
                        path_params=None if client_id is None else {"client_id": client_id})
    return Request.from_event(event)


@pytest.fixture
def enabled(aws: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Dynamic registration switched on (template parameter DynamicClientRegistration)."""
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_DYNAMIC_REGISTRATION", "true")
    caches.reset()
