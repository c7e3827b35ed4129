"""Lambda handler: the charges function — POST /charges, GET /charges/{id}, GET /charges.

Thin by design: authenticate (bearer guard), count (limiter), parse, call authgate.charges,
render. Every failure is an ApiError rendered by the App in the caller's negotiated shape.
"""

from __future__ import annotations

from typing import Any

from authgate import limits
from authgate.charges import service
from authgate.charges.idempotency import idempotency_key
from authgate.charges.invocation import InvocationApp
from authgate.errors.render import base_url
from authgate.http.app import Route
from authgate.http.body import json_object
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.tokens.guard import require_bearer

# Charges are account data: never stored by shared caches (RFC 9111 5.2.2.5).
NO_STORE = {"Cache_Control": "no-store"}


def _json(status: int, payload: Any, state: limits.RateLimitState) -> Response:
    return state.apply(Response.json(status, payload, **NO_STORE))


def create_charge(request: Request) -> Response:
    principal = require_bearer(request, "charges:write")
    state = limits.enforce(request, principal)
    key = idempotency_key(request)
    created = service.create_charge(principal, json_object(request), key)
    response = Response(created.status, created.body, {
        "Content-Type": "application/json", "Cache-Control": "no-store",
        "Location": f"{base_url(request)}/charges/{created.charge_id}",
    })
    if created.replayed:
        response.set_header("Idempotent-Replayed", "true")
    return state.apply(response)


def get_charge(request: Request) -> Response:
    principal = require_bearer(request, "charges:read")
    state = limits.enforce(request, principal)
    charge = service.get_charge(principal, request.path_params.get("id", ""))
    return _json(200, charge, state)


def list_charges(request: Request) -> Response:
    principal = require_bearer(request, "charges:read")
    state = limits.enforce(request, principal)
    limit, cursor = service.page_parameters(request.query)
    return _json(200, service.list_charges(principal, limit, cursor), state)


handler = InvocationApp("charges", {
    ("/charges", "POST"): Route(create_charge, "api"),
    ("/charges", "GET"): Route(list_charges, "api"),
    ("/charges/{id}", "GET"): Route(get_charge, "api"),
})
