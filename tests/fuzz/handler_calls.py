"""The fuzz targets' calls into the handlers, and the one invariant they check: a documented status.

Responses are checked against the OpenAPI document (never a 5xx, always a status the operation
lists); the `invoke` fixture checks every failure against the error contract as well.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from authgate_cli.local.events import HttpRequest, build_event
from authgate_cli.openapi.build import DOCUMENT_PATH

DOCUMENT = json.loads(DOCUMENT_PATH.read_text(encoding="utf-8"))
Invoke = Callable[[str, dict[str, Any]], dict[str, Any]]


def documented(method: str, path: str) -> set[int]:
    """The statuses the OpenAPI document lists for one operation."""
    return {int(s) for s in DOCUMENT["paths"][path][method.lower()]["responses"]}


def assert_documented(result: dict[str, Any], method: str, path: str) -> None:
    """Never a 5xx, always a status the OpenAPI document lists for the operation."""
    status = result["statusCode"]
    assert status < 500, (status, result.get("body", "")[:300])
    assert status in documented(method, path), (status, method, path, result.get("body", "")[:300])


def call(invoke: Invoke, function: str, method: str, path: str, *, query: str = "",
         headers: list[tuple[str, str]] | None = None, body: bytes = b"", resource: str | None = None) -> dict[str, Any]:
    """One request through `function`'s handler, as the local gateway builds its event."""
    request = HttpRequest(method, path, query, [("Host", "127.0.0.1:3000"), *(headers or [])], body)
    return invoke(function, build_event(request, resource=resource or path, path_params=None))


# Every token bearer() signed: the fuzz log_hygiene fixture looks for them in the log.
ISSUED: set[str] = set()


def bearer() -> str:
    """A real access token of demo-service, remembered in ISSUED."""
    from authgate.tokens.access_token import issue_access_token

    token = issue_access_token(issuer="http://127.0.0.1:3000", subject="demo-service", client_id="demo-service",
                               tenant="demo", scope="charges:read charges:write").token
    ISSUED.add(token)
    return token
