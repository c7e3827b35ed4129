"""local.server.Emulator: one request through the emulator, without sockets.

The functions here stand in for Lambda handlers (the integration), not for project code: the
emulator's routing, API-key check, gateway responses and result reading are what is tested.
"""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import pytest

from authgate_cli.local.events import HttpRequest
from authgate_cli.local.routing import Router
from authgate_cli.local.server import Emulator
from authgate_cli.local.template import api_routes

ISSUER = "http://127.0.0.1:3000"
SEEN: list[dict[str, Any]] = []


def echo(event: dict[str, Any], context: Any) -> dict[str, Any]:
    SEEN.append(event)
    return {"statusCode": 201, "headers": {"Content-Type": "application/json", "X-One": "a"},
            "multiValueHeaders": {"Set-Cookie": ["a=1", "b=2"], "X-One": ["b"]},
            "body": json.dumps({"resource": event["resource"]}), "isBase64Encoded": False}


def binary(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return {"statusCode": 200, "headers": {"Content-Type": "image/png"},
            "body": base64.b64encode(b"\x89PNG").decode(), "isBase64Encoded": True}


def crash(event: dict[str, Any], context: Any) -> dict[str, Any]:
    raise RuntimeError("secret internal detail")


def malformed(event: dict[str, Any], context: Any) -> Any:
    return "not a proxy result"


def emulator(handler: Any, log: io.StringIO | None = None) -> Emulator:
    return Emulator(Router(api_routes()), issuer=ISSUER, api_keys={"demo-api-key": "StandardUsagePlan"},
                    log=log, load=lambda _function: handler)


@pytest.fixture(autouse=True)
def issuer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTHGATE_ISSUER", ISSUER)
    SEEN.clear()


def headers(reply: Any) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, value in reply.headers:
        out.setdefault(name, []).append(value)
    return out


def problem(reply: Any) -> dict[str, Any]:
    assert headers(reply)["Content-Type"] == ["application/problem+json"]
    body = json.loads(reply.body)
    assert body["status"] == reply.status
    return body


def test_routes_to_the_handler_and_merges_result_headers_like_api_gateway() -> None:
    log = io.StringIO()
    reply = emulator(echo, log).handle(HttpRequest("GET", "/charges/ch_1", "x=1",
                                                   [("x-api-key", "demo-api-key")]))
    assert reply.status == 201
    got = headers(reply)
    assert got.pop("x-amzn-RequestId") == [SEEN[0]["requestContext"]["requestId"]]
    assert got.pop("x-amz-apigw-id") == [SEEN[0]["requestContext"]["extendedRequestId"]]
    assert got == {"Content-Type": ["application/json"], "X-One": ["b"], "Set-Cookie": ["a=1", "b=2"]}
    assert json.loads(reply.body) == {"resource": "/charges/{id}"}
    event = SEEN[0]
    assert (event["pathParameters"], event["queryStringParameters"]) == ({"id": "ch_1"}, {"x": "1"})
    assert event["requestContext"]["identity"]["apiKey"] == "demo-api-key"
    line = json.loads(log.getvalue())
    assert {k: line[k] for k in ("message", "method", "path", "status", "request_id")} == {
        "message": "request", "method": "GET", "path": "/charges/ch_1", "status": 201,
        "request_id": event["requestContext"]["requestId"]}


def test_base64_result_body_is_decoded() -> None:
    reply = emulator(binary).handle(HttpRequest("GET", "/.well-known/jwks.json"))
    assert (reply.status, reply.body) == (200, b"\x89PNG")


def test_unmatched_route_is_the_missing_authentication_token_gateway_response() -> None:
    """The template's catch-all means this needs a router without it (as a resource without ANY)."""
    routes = [r for r in api_routes() if r.path not in ("/{proxy+}", "/")]
    bare = Emulator(Router(routes), issuer=ISSUER, load=lambda _function: echo)
    reply = bare.handle(HttpRequest("GET", "/nothing"))
    assert reply.status == 404
    assert problem(reply)["code"] == "not_found"
    assert SEEN == []


@pytest.mark.parametrize("key", [None, "wrong-key"])
def test_api_key_routes_need_a_known_key(key: str | None) -> None:
    request_headers = [("x-api-key", key)] if key else []
    reply = emulator(echo).handle(HttpRequest("POST", "/charges", headers=request_headers))
    assert reply.status == 403
    assert problem(reply)["code"] == "invalid_api_key"
    assert SEEN == []


def test_handler_crash_is_a_gateway_problem_without_internals(capsys: pytest.CaptureFixture[str]) -> None:
    reply = emulator(crash).handle(HttpRequest("GET", "/.well-known/jwks.json"))
    assert reply.status in (502, 504)
    assert b"secret internal detail" not in reply.body
    assert problem(reply)["status"] == reply.status
    assert "RuntimeError" in capsys.readouterr().err


def test_malformed_proxy_result_is_a_gateway_problem() -> None:
    reply = emulator(malformed).handle(HttpRequest("GET", "/.well-known/jwks.json"))
    assert reply.status in (502, 504)
    problem(reply)


def test_body_over_api_gateway_limit_is_413() -> None:
    reply = emulator(echo).handle(HttpRequest("POST", "/oauth/token", too_large=True))
    assert reply.status == 413
    assert problem(reply)["status"] == 413
    assert SEEN == []


def test_an_event_over_lambdas_invoke_limit_never_reaches_the_function() -> None:
    """Between Lambda's 6 MB and API Gateway's 10 MB: the gateway takes the body, Lambda refuses the
    invoke, and the client gets the gateway's integration failure (502), not the function's 413."""
    from authgate_cli.local.server import MAX_INVOKE_PAYLOAD_BYTES, invoke_payload_size

    body = json.dumps({"description": "x" * MAX_INVOKE_PAYLOAD_BYTES}).encode()
    reply = emulator(echo).handle(HttpRequest("POST", "/charges", body=body, headers=[
        ("Content-Type", "application/json"), ("x-api-key", "demo-api-key")]))
    assert (reply.status, problem(reply)["code"]) == (502, "bad_gateway")
    assert SEEN == []

    # Just under it (the event's other members included), the function runs and answers.
    fits = b"x" * (MAX_INVOKE_PAYLOAD_BYTES - 4096)
    reply = emulator(echo).handle(HttpRequest("POST", "/charges", body=fits, headers=[
        ("Content-Type", "text/plain"), ("x-api-key", "demo-api-key")]))
    assert reply.status == 201 and len(SEEN) == 1
    assert invoke_payload_size(SEEN[0]) <= MAX_INVOKE_PAYLOAD_BYTES


@pytest.mark.parametrize("headers", [
    {"X-Injected": "a\r\nSet-Cookie: evil=1"},
    {"Bad Name": "x"},
    {"X-Text": "caf\u00e9 \u2603"},
])
def test_a_header_that_cannot_go_on_the_wire_is_an_integration_failure(headers: dict[str, str]) -> None:
    """CR/LF, a name that is not a token, or text outside Latin-1 never reach the socket (RFC 9110 5.5)."""
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return {"statusCode": 200, "headers": headers, "body": "{}"}

    reply = emulator(handler).handle(HttpRequest("GET", "/.well-known/jwks.json"))
    assert reply.status == 502
    assert problem(reply)["code"] == "bad_gateway"
