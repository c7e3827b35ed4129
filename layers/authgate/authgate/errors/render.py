"""Chooses the renderer for a failure: the one place an ApiError becomes a Response.

FOUNDATION VERSION: problem+json for API routes and RFC 6749 JSON for OAuth routes.
Issue 3 replaces the bodies of these functions with the full set of shapes and negotiation;
the signature `render_error(error, request, surface) -> Response` is the stable interface.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.http.response import Response
from authgate.settings import get_settings

if TYPE_CHECKING:
    from authgate.errors.model import ApiError
    from authgate.http.request import Request


def base_url(request: "Request | None") -> str:
    """The issuer / public base URL: configured, else derived from the API Gateway context."""
    configured = get_settings().issuer
    if configured or request is None:
        return configured
    if request.domain and request.stage:
        return f"https://{request.domain}/{request.stage}"
    return ""


def render_error(error: "ApiError", request: "Request | None", surface: str) -> Response:
    if surface == "oauth":
        return _oauth_json(error)
    return _problem(error, request)


def _problem(error: "ApiError", request: "Request | None") -> Response:
    body = {
        "type": f"{base_url(request)}/problems/{error.code}",
        "title": error.title,
        "status": error.status,
        "detail": error.detail,
        "instance": request.path if request else "",
        "code": error.code,
        "traceId": request.request_id if request else "",
    }
    if error.field_errors:
        body["errors"] = [{"pointer": f.pointer, "detail": f.message} for f in error.field_errors]
    response = Response.json(error.status, body, "application/problem+json")
    for name, value in error.headers.items():
        response.set_header(name, value)
    return response


def _oauth_json(error: "ApiError") -> Response:
    response = Response.json(error.status, {"error": error.oauth_error or error.code,
                                            "error_description": error.detail},
                             Cache_Control="no-store", Pragma="no-cache")
    for name, value in error.headers.items():
        response.set_header(name, value)
    return response
