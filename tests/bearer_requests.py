"""Test support for the bearer-check tests: API Gateway events, a guarded route, a seeded client,
tokens' claims and headers to change, and the guard's whole error responses.

Time comes from the `clock` fixture (authgate.clock), so tests cross rotations and expiries
without sleeping; the `keys` fixture (tests/conftest.py) makes a current key.
"""

from __future__ import annotations

import json
from typing import Any

from authgate.failures import api_error
from authgate.http.app import App, Route
from authgate.http.response import Response
from tests.demo import AUDIENCE, ISSUER


def issue(scope: str = "charges:read charges:write", **kwargs: Any) -> Any:
    """An access token from the real issuer for demo-service (tenant demo)."""
    from authgate.tokens.access_token import issue_access_token

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
    return Response.json(200, {"sub": principal.subject, "client_id": principal.client_id,
                               "tenant": principal.tenant, "error_format": request.context.error_format})


def _charges_write(request: Any) -> Response:
    from authgate.tokens.guard import require_bearer

    require_bearer(request, "charges:write")
    return Response.json(201, {"ok": True})


# A tiny protected route, mounted the way functions/charges/app.py mounts its routes.
GUARDED = App("guard-test", {("/charges", "GET"): Route(_charges_read), ("/charges", "POST"): Route(_charges_write)},
              translate=api_error)


def call(evt: dict[str, Any]) -> tuple[int, dict[str, list[str]], Any]:
    result = GUARDED(evt)
    return result["statusCode"], result["multiValueHeaders"], json.loads(result["body"])


def seed_client(client_id: str = "demo-service", error_format: str = "problem", environment: str = "local") -> None:
    from authgate.clients.model import Client, hash_secret
    from authgate.stores.clients import ClientStore

    ClientStore().put(Client(client_id=client_id, tenant_id="demo", environment=environment,
                             client_type="confidential", secret_hash=hash_secret(f"{client_id}-secret"),
                             redirect_uris=(), grant_types=("client_credentials",),
                             scopes=("charges:read", "charges:write"), error_format=error_format))


def problem(code: str, title: str, status: int, detail: str, path: str = "/charges") -> dict[str, Any]:
    return {"type": f"{ISSUER}/problems/{code}", "title": title, "status": status, "detail": detail,
            "instance": path, "code": code, "traceId": "req-1"}


def claims_now(now: int, **changes: Any) -> dict[str, Any]:
    """The claims of a demo-service token issued at `now`, with `changes` (None drops a claim)."""
    claims = {"iss": ISSUER, "sub": "demo-service", "aud": AUDIENCE, "exp": now + 900, "iat": now,
              "jti": "jti-1", "client_id": "demo-service", "scope": "charges:read", "tenant": "demo"}
    claims.update(changes)
    return {k: v for k, v in claims.items() if v is not None}


def current_header(**changes: Any) -> dict[str, Any]:
    """The JOSE header the current signing key writes, with `changes` (None drops a member)."""
    from authgate.tokens.current_signer import current_signer

    signer = current_signer()
    header = {"typ": "at+jwt", "alg": signer.alg, "kid": signer.kid}
    header.update(changes)
    return {k: v for k, v in header.items() if v is not None}


METADATA = f'resource_metadata="{ISSUER}/.well-known/oauth-protected-resource/charges"'
# RFC 9449 7.1: the DPoP challenge beside Bearer on every failure of the resource.
DPOP = f'DPoP algs="ES256 EdDSA RS256 PS256", {METADATA}'
NO_CREDENTIALS = f'Bearer realm="api", {METADATA}, {DPOP}'


def challenge(error: str, description: str, scope: str | None = None) -> str:
    value = f'Bearer realm="api", error="{error}", error_description="{description}"'
    return value + (f', scope="{scope}"' if scope else "") + f", {METADATA}, {DPOP}"


def error_headers(www_authenticate: str) -> dict[str, list[str]]:
    return {"Content-Type": ["application/problem+json"], "Vary": ["Accept"],
            "WWW-Authenticate": [www_authenticate], "x-request-id": ["req-1"]}


def assert_invalid_token(evt: dict[str, Any], detail: str) -> None:
    """The guarded route answers the whole 401 invalid_token response (RFC 6750 3.1) with this detail."""
    assert call(evt) == (401, error_headers(challenge("invalid_token", detail)),
                         problem("invalid_token", "Invalid access token", 401, detail))
