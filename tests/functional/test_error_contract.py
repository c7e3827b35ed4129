"""Issue 3, item 6: every function answers the HTTP-level failures in the contract's shapes.

Each function runs in-process through the `invoke` fixture (which also runs every error result
through tests/contract.py). Responses are asserted whole.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from authgate.http.app import App, Route
from authgate.http.body import json_object
from authgate.http.response import Response
from tests import events
from tests.contract import check_proxy_result

ISSUER = "http://127.0.0.1:3000"
# (function, a resource it serves, the methods it takes there, its surface)
FUNCTIONS = [
    ("authorize", "/oauth/authorize", "GET, POST", "authorize"),
    ("token", "/oauth/token", "OPTIONS, POST", "oauth"),      # OPTIONS: the CORS preflight
    ("jwks", "/.well-known/jwks.json", "GET, OPTIONS", "api"),
    ("charges", "/charges", "GET, POST", "api"),
]


def event(method: str, resource: str, path: str | None = None, *, body: str | None = None,
          headers: dict[str, str] | None = None) -> dict[str, Any]:
    """An event as the local stack's gateway sends it (its domain and stage name the issuer)."""
    return events.event(method, resource, path, body=body, headers=headers, stage="local", domain="127.0.0.1:3000")


def whole(result: dict[str, Any]) -> tuple[int, dict[str, list[str]], Any]:
    return result["statusCode"], result["multiValueHeaders"], json.loads(result["body"])


def problem(code: str, status: int, title: str, detail: str, instance: str, trace: str = "gw-req-1") -> dict:
    return {"type": f"{ISSUER}/problems/{code}", "title": title, "status": status, "detail": detail,
            "instance": instance, "code": code, "traceId": trace}




@pytest.mark.parametrize("function, resource, allow, surface", FUNCTIONS)
def test_unknown_path_is_404(aws, invoke, function, resource, allow, surface):
    result = invoke(function, event("GET", "/{proxy+}", "/no/such/thing"))
    assert whole(result) == (404, {
        "Content-Type": ["application/problem+json"], "Vary": ["Accept"], "x-request-id": ["gw-req-1"],
    }, problem("not_found", 404, "Not found", "No route for GET /no/such/thing.", "/no/such/thing"))


@pytest.mark.parametrize("function, resource, allow, surface", FUNCTIONS)
def test_known_path_other_method_is_405_with_allow(aws, invoke, function, resource, allow, surface):
    result = invoke(function, event("DELETE", resource))
    status, headers, raw = whole_any(result)
    assert (status, headers["Allow"], headers["x-request-id"]) == (405, [allow], ["gw-req-1"])
    detail = f"DELETE is not allowed on {resource}."
    body = json.loads(raw) if surface != "authorize" else raw
    if surface == "oauth":
        assert headers["Content-Type"] == ["application/json"] and headers["Cache-Control"] == ["no-store"]
        assert body == {"error": "invalid_request", "error_description": detail,
                        "error_uri": f"{ISSUER}/problems/method_not_allowed"}
    elif surface == "authorize":  # no validated redirect URI yet: a page, never a redirect
        assert headers["Content-Type"] == ["text/html; charset=utf-8"]
        assert "<code>method_not_allowed</code>" in body
    else:
        assert headers["Content-Type"] == ["application/problem+json"]
        assert body == problem("method_not_allowed", 405, "Method not allowed", detail, resource)


def whole_any(result: dict[str, Any]) -> tuple[int, dict[str, list[str]], str]:
    return result["statusCode"], result["multiValueHeaders"], result["body"]


@pytest.mark.parametrize("function, resource, allow, surface", FUNCTIONS)
def test_oversized_body_is_413(aws, invoke, monkeypatch, function, resource, allow, surface):
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_MAX_BODY_BYTES", "1024")
    caches.reset()
    method = "POST" if "POST" in allow else "GET"
    result = invoke(function, event(method, resource, body="x" * 1025,
                                    headers={"Content-Type": "application/json"}))
    status, headers, body = whole_any(result)
    assert (status, headers["x-request-id"]) == (413, ["gw-req-1"])
    if surface == "api":
        assert json.loads(body) == problem("payload_too_large", 413, "Payload too large",
                                           "The request body exceeds 1024 bytes.", resource)
    elif surface == "oauth":
        assert json.loads(body)["error"] == "invalid_request"


@pytest.mark.parametrize("function, resource, allow, surface", FUNCTIONS)
def test_unhandled_exception_is_500_without_internals_and_logged(aws, invoke, monkeypatch, log_lines,
                                                                 function, resource, allow, surface):
    from authgate import caches

    # A real failure, not a mock: the deployment is misconfigured, so settings cannot be built.
    monkeypatch.setenv("AUTHGATE_MAX_BODY_BYTES", "lots")
    caches.reset()
    method = "POST" if "POST" in allow else "GET"
    result = invoke(function, event(method, resource))
    status, headers, body = whole_any(result)
    assert (status, headers["x-request-id"]) == (500, ["gw-req-1"])
    assert "AUTHGATE_MAX_BODY_BYTES" not in body and "lots" not in body and "Traceback" not in body
    if surface == "api":
        assert json.loads(body) == {**problem("internal_error", 500, "Internal error",
                                              "An unexpected error occurred.", resource),
                                    "type": "https://127.0.0.1:3000/local/problems/internal_error"}
    elif surface == "oauth":
        assert json.loads(body)["error"] == "server_error"
    crash = [line for line in log_lines() if line["message"] == "unhandled exception"]
    assert len(crash) == 1 and "AUTHGATE_MAX_BODY_BYTES" in crash[0]["exception"]
    assert crash[0]["correlation_id"] == "gw-req-1"


# A tiny JSON route: the same http.body every JSON API route uses.
def echo(request):
    return Response.json(200, json_object(request))


JSON_APP = App("json-test", {("/things", "POST"): Route(echo)})


def test_wrong_content_type_on_a_json_route_is_415(aws):
    result = JSON_APP(event("POST", "/things", body="amount=1",
                            headers={"Content-Type": "application/x-www-form-urlencoded"}))
    check_proxy_result(result)
    assert whole(result) == (415, {
        "Content-Type": ["application/problem+json"], "Vary": ["Accept"], "x-request-id": ["gw-req-1"],
    }, {**problem("unsupported_media_type", 415, "Unsupported media type",
                  "Send the body as application/json (Content-Type was application/x-www-form-urlencoded).",
                  "/things"), "errors": [{"detail": "Expected application/json.", "header": "Content-Type"}]})


def test_malformed_json_is_400_with_a_pointer(aws):
    result = JSON_APP(event("POST", "/things", body='{"amount": 1,}', headers={"Content-Type": "application/json"}))
    check_proxy_result(result)
    detail = "The body is not valid JSON: Expecting property name enclosed in double quotes at line 1 column 14."
    assert whole(result) == (400, {
        "Content-Type": ["application/problem+json"], "Vary": ["Accept"], "x-request-id": ["gw-req-1"],
    }, {**problem("malformed_json", 400, "Malformed JSON", detail, "/things"),
        "errors": [{"detail": detail, "pointer": ""}]})


def test_jsonapi_content_type_with_parameters_is_415_as_jsonapi(aws):
    result = JSON_APP(event("POST", "/things", body="{}", headers={
        "Content-Type": "application/vnd.api+json; charset=utf-8", "Accept": "application/vnd.api+json"}))
    check_proxy_result(result)
    status, headers, body = whole(result)
    assert (status, headers["Content-Type"], body["errors"][0]["code"]) == (
        415, ["application/vnd.api+json"], "unsupported_media_type")


def test_charges_rejects_a_form_body_with_415(invoke, demo):
    result = invoke("charges", demo.event("POST", body=None, raw_body="amount=100",
                                          headers={"Content-Type": "application/x-www-form-urlencoded"}))
    status, headers, body = whole(result)
    assert (status, headers["Content-Type"], body["code"]) == (415, ["application/problem+json"],
                                                               "unsupported_media_type")


def test_charges_rejects_malformed_json_with_a_pointer(invoke, demo):
    result = invoke("charges", demo.event("POST", raw_body='{"amount": 100, "amount": 5}'))
    status, _, body = whole(result)
    assert (status, body["code"], body["errors"]) == (
        400, "malformed_json", [{"detail": "The member 'amount' appears more than once.", "pointer": ""}])
