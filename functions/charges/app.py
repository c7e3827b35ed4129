"""Lambda handler: the charges function — POST /charges, GET /charges/{id}, GET /charges.

Thin by design: authenticate (bearer check, with the route's own reads in its one batch),
count (limiter), parse, call authgate.charges, answer. Every failure is an ApiError (or a
domain exception, translated by authgate.failures) rendered by the App in the caller's
negotiated shape; the App also adds the limiter's RateLimit fields to every response.
"""

from __future__ import annotations

from authgate.charges import service
from authgate.charges.idempotency import KeyedRequest, recorded
from authgate.failures import api_error, as_api_error
from authgate.http.app import App, Route
from authgate.http.body import json_object
from authgate.http.request import Request
from authgate.http.response import NO_STORE, Response
from authgate.issuer import base_url
from authgate.limits.limiter import enforce
from authgate.tenants.errors import StrongAuthenticationRequired
from authgate.tokens.guard import require_bearer, require_bearer_with, step_up_challenge


def create_charge(request: Request) -> Response:
    keyed = KeyedRequest.of(request)
    principal, record = require_bearer_with(request, "charges:write", keyed.prefetch)
    enforce(request, principal)
    try:
        created = service.create_charge(principal, json_object(request), keyed.require(), recorded(record))
    except StrongAuthenticationRequired as weak:
        # RFC 9470 3: the challenge names what the token's sign-in lacks; nothing was written.
        raise step_up_challenge(as_api_error(weak), request, weak) from None
    # Charges are account data: never stored by a cache (RFC 9111 5.2.2.5).
    response = Response(created.status, created.body, {
        "Content-Type": "application/json", **NO_STORE, "Location": f"{base_url(request)}/charges/{created.charge_id}",
    })
    if created.replayed:
        response.set_header("Idempotent-Replayed", "true")
    return response


def get_charge(request: Request) -> Response:
    charge_id = request.path_params.get("id", "")
    principal, charge = require_bearer_with(request, "charges:read", service.charge_reader(charge_id))
    enforce(request, principal)
    return Response.json(200, service.found_charge(charge_id, charge), headers=NO_STORE)


def list_charges(request: Request) -> Response:
    principal = require_bearer(request, "charges:read")
    enforce(request, principal)
    limit, cursor = service.page_parameters(request.query)
    return Response.json(200, service.list_charges(principal, limit, cursor), headers=NO_STORE)


handler = App("charges", {
    ("/charges", "POST"): Route(create_charge, "api"),
    ("/charges", "GET"): Route(list_charges, "api"),
    ("/charges/{id}", "GET"): Route(get_charge, "api"),
}, translate=api_error)
