"""Build the OpenAPI 3.1 document from template.yaml's routes and the error catalogue.

The paths and methods come from template.yaml (the one route list); this module only adds what
the template cannot say: parameters, bodies, success responses, and which catalogue codes each
operation can answer with. Every error status is documented in every shape the route speaks:
RFC 9457 problem+json, JSON:API and the two legacy shapes on API routes, RFC 6749 5.2 JSON on
OAuth routes, an HTML page or a 302 on the authorization endpoint. A template route with no
entry in OPERATIONS fails the build, so the document cannot silently miss a route.

    python -m authgate_cli.openapi.build          # rewrites authgate/openapi/openapi.json
"""

from __future__ import annotations

import json
import sys
from typing import Any

# The document ships in the runtime package (the jwks function serves it); this builder does not.
from authgate.openapi.document import DOCUMENT_PATH
from authgate_cli.openapi.operations import OPERATIONS, SCHEMAS

# Failures any routed request may meet: the App (413 body bound, 500) and API Gateway itself
# (429 throttling, 502 integration failure, 504 integration timeout): gateway responses are
# problem+json on every route (template.yaml GatewayResponses).
COMMON_CODES = ("payload_too_large", "rate_limited", "internal_error", "bad_gateway", "gateway_timeout")
GATEWAY_STATUSES = frozenset({429, 502, 504})
API_CODES = ("not_acceptable", "unsupported_media_type", "service_unavailable")

PROBLEM = {"$ref": "#/components/schemas/Problem"}
JSONAPI = {"$ref": "#/components/schemas/JsonApiErrors"}
LEGACY = {"oneOf": [{"$ref": "#/components/schemas/LegacyA"}, {"$ref": "#/components/schemas/LegacyB"}]}
OAUTH = {"$ref": "#/components/schemas/OAuthError"}
HTML = {"type": "string", "description": "An HTML page for a person (error code and request id shown)."}
CORRELATION_HEADERS = {
    "x-request-id": {"description": "Request id; equals the body's traceId. Quote it to operators.",
                     "schema": {"type": "string"}},
}
RETRY_AFTER = {"description": "Seconds to wait before retrying (RFC 9110 10.2.3).",
               "schema": {"type": "string"}}


def _catalogue() -> dict[str, dict[str, Any]]:
    from authgate.errors.catalogue import catalogue

    return {code: {"status": info.status, "title": info.title} for code, info in catalogue().items()}


def _error_content(surface: str, status: int) -> dict[str, Any]:
    if surface == "oauth":
        content = {"application/json": {"schema": OAUTH}}
        if status in GATEWAY_STATUSES:
            content["application/problem+json"] = {"schema": PROBLEM}
        return content
    if surface in ("authorize", "page"):
        content = {"text/html": {"schema": HTML}}
        if status in GATEWAY_STATUSES or status in (413, 500):
            content["application/problem+json"] = {"schema": PROBLEM}
        return content
    return {"application/problem+json": {"schema": PROBLEM},
            "application/vnd.api+json": {"schema": JSONAPI},
            "application/json": {"schema": LEGACY}}


def _error_responses(surface: str, codes: tuple[str, ...]) -> dict[str, Any]:
    catalogue = _catalogue()
    by_status: dict[int, list[str]] = {}
    for code in (*codes, *COMMON_CODES, *(API_CODES if surface == "api" else ())):
        by_status.setdefault(catalogue[code]["status"], [])
        if code not in by_status[catalogue[code]["status"]]:
            by_status[catalogue[code]["status"]].append(code)
    responses: dict[str, Any] = {}
    for status in sorted(by_status):
        names = ", ".join(f"`{c}`" for c in by_status[status])
        headers = dict(CORRELATION_HEADERS)
        if status in (429, 503) or "idempotency_request_in_progress" in by_status[status] \
                or "concurrent_update" in by_status[status]:
            headers["Retry-After"] = RETRY_AFTER
        if status == 401:
            headers["WWW-Authenticate"] = {"description": "Bearer (API) or Basic (token endpoint) challenge.",
                                           "schema": {"type": "string"}}
        if status == 405:
            headers["Allow"] = {"schema": {"type": "string"}}
        responses[str(status)] = {"description": f"Error codes: {names}.", "headers": headers,
                                  "content": _error_content(surface, status)}
    return responses


def build_document(routes: list[Any] | None = None) -> dict[str, Any]:
    """The OpenAPI document for the template's routes (ANY routes are the 404/405 catch-alls)."""
    if routes is None:
        from authgate_cli.local.template import api_routes

        routes = api_routes()
    paths: dict[str, dict[str, Any]] = {}
    for route in sorted(routes, key=lambda r: (r.path, r.method)):
        if route.method == "ANY":
            continue
        key = (route.path, route.method)
        if key not in OPERATIONS:
            raise KeyError(f"template route {route.method} {route.path} has no entry in authgate_cli.openapi.operations")
        op = OPERATIONS[key]
        operation = {k: v for k, v in op.items() if k not in ("surface", "codes", "responses")}
        operation["responses"] = {**op["responses"], **_error_responses(op["surface"], op["codes"])}
        if route.api_key_required:
            operation["security"] = [{"apiKey": [], "bearer": []}]
        paths.setdefault(route.path, {})[route.method.lower()] = operation
    missing = set(OPERATIONS) - {(r.path, r.method) for r in routes}
    if missing:
        raise KeyError(f"operations documented but not routed in template.yaml: {sorted(missing)}")
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "authgate",
            "version": "1",
            "description": (
                "OAuth 2.0 authorization server and bearer-protected charges API. Every failure has a "
                "documented status and shape: RFC 9457 problem+json (default on API routes), JSON:API "
                "errors (Accept: application/vnd.api+json), legacy shapes A/B for clients registered "
                "with them, RFC 6749 5.2 JSON on OAuth routes. Any other path is a 404 and any other "
                "method a 405 with Allow, in the route's shape. Problem types are documented at "
                "/problems/{code}."),
        },
        "servers": [{"url": "/"}],
        "paths": paths,
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT (RFC 9068)"},
                "apiKey": {"type": "apiKey", "in": "header", "name": "x-api-key"},
                "clientBasic": {"type": "http", "scheme": "basic",
                                "description": "client_secret_basic (RFC 6749 2.3.1)"},
            },
        },
    }


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=1, sort_keys=False, ensure_ascii=False) + "\n"


def main() -> int:
    DOCUMENT_PATH.write_text(render(build_document()), encoding="utf-8")
    print(f"wrote {DOCUMENT_PATH}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
