"""Test support for the token tests: a settable clock, API Gateway events, a guarded route.

The clock is injected through authgate.tokens.clock.use (the seam production code reads),
so tests cross rotations and expiries without sleeping.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from authgate.http.app import App, Route
from authgate.http.response import Response

ISSUER = "http://127.0.0.1:3000"
AUDIENCE = ISSUER + "/charges"
START = 1_750_000_000


class FakeClock:
    def __init__(self, start: float = START) -> None:
        self.t = float(start)

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    from authgate.tokens import clock as token_clock

    fake = FakeClock()
    with token_clock.use(fake):
        yield fake


@pytest.fixture
def keys(aws: None, clock: FakeClock) -> None:
    """A current signing key and the demo-service client, at the fake clock's time."""
    from authgate.tokens.keys import ensure_keys

    ensure_keys()
    seed_client()


def issue(scope: str = "charges:read charges:write", **kwargs: Any) -> Any:
    """An access token from the real issuer for demo-service (tenant demo)."""
    from authgate.tokens.issue import issue_access_token

    args = {"issuer": ISSUER, "subject": "demo-service", "client_id": "demo-service", "tenant": "demo",
            "scope": scope, **kwargs}
    return issue_access_token(**args)


def event(method: str = "GET", path: str = "/charges", headers: dict[str, list[str]] | None = None,
          query: dict[str, list[str]] | None = None, body: str = "") -> dict[str, Any]:
    """An API Gateway REST (payload v1) proxy event for `path` (resource = path)."""
    headers = headers or {}
    return {
        "resource": path, "path": path, "httpMethod": method,
        "headers": {k: v[-1] for k, v in headers.items()}, "multiValueHeaders": headers,
        "queryStringParameters": {k: v[-1] for k, v in query.items()} if query else None,
        "multiValueQueryStringParameters": query, "pathParameters": None,
        "body": body, "isBase64Encoded": False,
        "requestContext": {"requestId": "req-1", "stage": "local", "domainName": "127.0.0.1",
                           "identity": {"sourceIp": "127.0.0.1"}},
    }


def bearer(token: str, **extra: list[str]) -> dict[str, list[str]]:
    return {"Authorization": [f"Bearer {token}"], **extra}


def _charges_read(request: Any) -> Response:
    from authgate.tokens.guard import require_bearer

    principal = require_bearer(request, "charges:read")
    return Response.json(200, {"sub": principal.subject, "client_id": request.state["client_id"],
                               "tenant": request.state["tenant"], "error_format": request.state["error_format"]})


def _charges_write(request: Any) -> Response:
    from authgate.tokens.guard import require_bearer

    require_bearer(request, "charges:write")
    return Response.json(201, {"ok": True})


# A tiny protected route, mounted the way functions/charges/app.py mounts its routes.
GUARDED = App("guard-test", {("/charges", "GET"): Route(_charges_read), ("/charges", "POST"): Route(_charges_write)})


def call(evt: dict[str, Any]) -> tuple[int, dict[str, list[str]], Any]:
    result = GUARDED(evt)
    return result["statusCode"], result["multiValueHeaders"], json.loads(result["body"])


def seed_client(client_id: str = "demo-service", error_format: str = "problem", environment: str = "local") -> None:
    from authgate.stores.clients import Client, ClientStore, hash_secret

    ClientStore().put(Client(client_id=client_id, tenant_id="demo", environment=environment,
                             client_type="confidential", secret_hash=hash_secret(f"{client_id}-secret"),
                             redirect_uris=(), grant_types=("client_credentials",),
                             scopes=("charges:read", "charges:write"), error_format=error_format))


def problem(code: str, title: str, status: int, detail: str, path: str = "/charges") -> dict[str, Any]:
    return {"type": f"{ISSUER}/problems/{code}", "title": title, "status": status, "detail": detail,
            "instance": path, "code": code, "traceId": "req-1"}
