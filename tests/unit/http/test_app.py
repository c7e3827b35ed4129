"""The App's error boundary: 404, 405 + Allow, 413, 500 without internals, correlation headers."""

from __future__ import annotations

import json

from authgate.errors import ApiError
from authgate.http.app import App, Route
from authgate.http.response import Response
from tests.demo import ISSUER
from tests.events import event


def ok(_request):
    return Response.json(200, {"ok": True})


def boom(_request):
    raise RuntimeError("secret internal detail")


APP = App("test", {("/things", "GET"): Route(ok), ("/things", "POST"): Route(ok), ("/boom", "GET"): Route(boom)})


def test_success_carries_request_id_from_gateway():
    result = APP(event())
    assert result["statusCode"] == 200
    assert result["multiValueHeaders"]["x-request-id"] == ["gw-req-1"]
    assert json.loads(result["body"]) == {"ok": True}


def test_known_path_other_method_is_405_with_allow():
    result = APP(event("DELETE"))
    assert result["statusCode"] == 405
    assert result["multiValueHeaders"]["Allow"] == ["GET, POST"]
    assert result["multiValueHeaders"]["Content-Type"] == ["application/problem+json"]
    body = json.loads(result["body"])
    assert body["status"] == 405 and body["code"] == "method_not_allowed"
    assert body["traceId"] == "gw-req-1"


def test_unknown_path_is_404_problem():
    result = APP(event("GET", "/{proxy+}", "/nope"))
    assert result["statusCode"] == 404
    body = json.loads(result["body"])
    assert body["type"] == f"{ISSUER}/problems/not_found"
    assert body["code"] == "not_found"


def test_unhandled_exception_is_500_without_internals():
    result = APP(event("GET", "/boom"))
    assert result["statusCode"] == 500
    assert "secret internal detail" not in result["body"]
    assert json.loads(result["body"])["code"] == "internal_error"


def test_oversized_body_is_413(monkeypatch):
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_MAX_BODY_BYTES", "1024")
    caches.reset()
    result = APP(event("POST", body="x" * 2000))
    assert result["statusCode"] == 413
    assert json.loads(result["body"])["code"] == "payload_too_large"


def test_sane_request_id_echoed_insane_replaced():
    assert APP(event(headers={"x-request-id": "abc-123"}))["multiValueHeaders"]["x-request-id"] == ["abc-123"]
    assert APP(event(headers={"x-request-id": "bad id\r\n"}))["multiValueHeaders"]["x-request-id"] == ["gw-req-1"]


def test_api_error_raised_by_route_is_rendered():
    def fails(_request):
        raise ApiError("invoice_locked", "Invoice inv_1 is locked.")

    app = App("t", {("/x", "POST"): Route(fails)})
    result = app(event("POST", "/x"))
    assert result["statusCode"] == 403
    assert json.loads(result["body"])["code"] == "invoice_locked"


def test_unparseable_event_is_400_problem_with_the_gateway_request_id():
    result = APP({"requestContext": {"requestId": "gw-req-9"}, "path": "/things"})
    assert result["statusCode"] == 400
    assert result["multiValueHeaders"]["x-request-id"] == ["gw-req-9"]
    assert result["multiValueHeaders"]["Content-Type"] == ["application/problem+json"]
    body = json.loads(result["body"])
    assert body["code"] == "invalid_request" and body["status"] == 400 and body["traceId"] == "gw-req-9"


def test_a_lazy_route_loads_its_handler_on_first_request():
    app = App("test", {("/things", "GET"): Route("tests.unit.http.test_app:ok")})
    result = app(event())
    assert (result["statusCode"], json.loads(result["body"])) == (200, {"ok": True})
    assert app._loaded == {"tests.unit.http.test_app:ok": ok}


def test_every_lazy_route_of_every_function_names_a_handler():
    import importlib
    import importlib.util
    from pathlib import Path

    lazy = {}
    for path in sorted(Path(__file__).resolve().parents[3].glob("functions/*/app.py")):
        spec = importlib.util.spec_from_file_location(f"lazy_routes_{path.parent.name}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for key, route in getattr(module.handler, "routes", {}).items():
            if isinstance(route.handler, str):
                name, _, attr = route.handler.partition(":")
                lazy[(path.parent.name, *key)] = getattr(importlib.import_module(name), attr)
    assert ("token", "/oauth/par", "POST") in lazy
    assert all(callable(handler) for handler in lazy.values())
