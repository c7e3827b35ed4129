"""Rich Authorization Requests (RFC 9396) in the functional tests: a `charge` object, and a code that holds one."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.demo import AUDIENCE, CHALLENGE, ISSUER, WEB_REDIRECT, body, headers

ORDER = {"type": "charge", "actions": ["create"], "amount": 1250, "currency": "usd",
         "description": "Order 1042", "max_charges": 1}
# As the grant holds it: members sorted, defaults filled in.
GRANTED = {"actions": ["create"], "amount": 1250, "currency": "usd", "description": "Order 1042", "max_charges": 1,
           "type": "charge"}


def details(*entries: dict[str, Any]) -> str:
    return json.dumps(list(entries))


def canonical(*entries: dict[str, Any]) -> str:
    """What the authorization endpoint stores: the checked details' canonical JSON."""
    return json.dumps(list(entries), separators=(",", ":"), sort_keys=True)


def code_with(*entries: dict[str, Any], scope: str = "charges:read charges:write", resource: str | None = None,
              grant_id: str | None = None) -> str:
    """A code as the authorization endpoint stores it after the person approved `entries` (real CodeStore)."""
    from authgate.stores.codes import CodeStore

    return CodeStore().create(client_id="demo-web", tenant_id="demo", redirect_uri=WEB_REDIRECT,
                              code_challenge=CHALLENGE, code_challenge_method="S256", scope=scope, subject="alice",
                              resource=None if resource == AUDIENCE else resource, grant_id=grant_id,
                              authorization_details=canonical(*entries) if entries else None)


# The charges API's RateLimit-Policy (the demo tenant's limits).
POLICY = '"tenant";q=3000;w=60, "client";q=1200;w=60, "ip";q=600;w=60'
EXCEEDED = "authorization_details_exceeded"
SPENT_ONE = ("This grant has already made the 1 charge its approved payment allows (max_charges); ask the user to "
             "approve a new payment.")


def shapes(detail: str, request_id: str) -> dict[str, tuple[str, Any]]:
    problem_type = f"{ISSUER}/problems/{EXCEEDED}"
    title = "Beyond the authorized details"
    return {
        "problem": ("application/problem+json", {
            "type": problem_type, "title": title, "status": 403, "detail": detail,
            "instance": "/charges", "code": EXCEEDED, "traceId": request_id}),
        "jsonapi": ("application/vnd.api+json", {"jsonapi": {"version": "1.1"}, "errors": [{
            "status": "403", "code": EXCEEDED, "title": title,
            "links": {"type": problem_type}, "meta": {"traceId": request_id}, "detail": detail}]}),
        "legacy-a": ("application/json", {"error": EXCEEDED, "message": detail, "code": EXCEEDED, "status": 403}),
        "legacy-b": ("application/json", {"success": False, "errors": [
            {"field": "", "message": detail, "code": EXCEEDED}]}),
    }


def assert_exceeded(result: dict[str, Any], detail: str, shape: str = "problem") -> None:
    """The whole 403 authorization_details_exceeded of POST /charges in `shape`."""
    request_id = headers(result)["x-request-id"]
    media, expected = shapes(detail, request_id)[shape]
    sent = dict(result["multiValueHeaders"])
    assert re.fullmatch(r'"tenant";r=\d+;t=\d+, "client";r=\d+;t=\d+, "ip";r=\d+;t=\d+', sent.pop("RateLimit")[0])
    assert (result["statusCode"], sent, body(result)) == (
        403, {"Content-Type": [media], "Vary": ["Accept"], "x-request-id": [request_id],
              "RateLimit-Policy": [POLICY]}, expected)
