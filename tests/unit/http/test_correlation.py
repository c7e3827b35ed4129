"""Correlation headers (contract 7.5) and the logger's correlation id."""

from __future__ import annotations

import json

import pytest

from authgate.http.app import App, Route
from authgate.http.correlation import correlate, valid_traceparent
from authgate.http.response import Response
from authgate.logs import get_logger
from tests.events import event

TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


@pytest.mark.parametrize("incoming, echoed", [
    ("abc-123", "abc-123"),
    ("a" * 128, "a" * 128),
    ("a" * 129, "gw-1"),
    ("bad id", "gw-1"),
    ("x\r\nSet-Cookie: a=b", "gw-1"),
    ("", "gw-1"),
    (None, "gw-1"),
    ("caf\u00e9", "gw-1"),
])
def test_request_id_is_echoed_only_when_sane(incoming, echoed):
    assert correlate(incoming, None, None, "gw-1").request_id == echoed


@pytest.mark.parametrize("value, valid", [
    (TRACEPARENT, TRACEPARENT),
    ("00-00000000000000000000000000000000-00f067aa0ba902b7-01", None),
    ("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", None),
    ("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", None),
    ("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", None),
    (TRACEPARENT + "-extra", None),
    ("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future"),
    ("garbage", None),
    (None, None),
])
def test_traceparent_is_validated(value, valid):
    assert valid_traceparent(value) == valid


def ok(_request):
    get_logger().info("inside the handler")
    return Response.json(200, {"ok": True})


APP = App("test", {("/things", "GET"): Route(ok)})


def test_all_three_headers_are_echoed_and_the_request_id_is_the_log_correlation_id(log_lines):
    result = APP(event(headers={"x-request-id": "client-req-9", "x-correlation-id": "flow-7",
                                "traceparent": TRACEPARENT}))
    headers = result["multiValueHeaders"]
    assert (headers["x-request-id"], headers["x-correlation-id"], headers["traceparent"]) == (
        ["client-req-9"], ["flow-7"], [TRACEPARENT])
    lines = log_lines()
    assert {line["correlation_id"] for line in lines} == {"client-req-9"}
    assert [line["message"] for line in lines] == ["inside the handler", "request"]


def test_insane_values_are_dropped_and_the_gateway_id_used(log_lines):
    result = APP(event(headers={"x-request-id": "no spaces please", "x-correlation-id": "\x00",
                                "traceparent": "nope"}))
    assert {k: v for k, v in result["multiValueHeaders"].items() if k != "Content-Type"} == {
        "x-request-id": ["gw-req-1"]}
    lines = log_lines()
    assert {line["correlation_id"] for line in lines} == {"gw-req-1"}


def test_error_bodies_carry_the_same_id():
    result = APP(event("GET", "/{proxy+}", "/nope", headers={"x-request-id": "client-req-9"}))
    assert json.loads(result["body"])["traceId"] == result["multiValueHeaders"]["x-request-id"][0] == "client-req-9"
