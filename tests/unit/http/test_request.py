"""http.request: an API Gateway REST proxy event (payload v1) as a Request; malformed input is invalid_request."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from authgate.errors import ApiError
from authgate.http.request import Request
from tests.events import event


def parsed(**changes: Any) -> Request:
    return Request.from_event({**event("post", "/charges/{id}", "/charges/ch_1"), **changes})


def test_an_event_becomes_a_request() -> None:
    req = parsed(pathParameters={"id": "ch_1"}, multiValueHeaders={"X-A": ["1", "2"], "Content-Type": ["text/plain"]},
                 multiValueQueryStringParameters={"limit": ["5"], "tag": ["a", "b"]}, body="hi")
    assert (req.method, req.path, req.resource, req.path_params) == ("POST", "/charges/ch_1", "/charges/{id}",
                                                                     {"id": "ch_1"})
    assert (req.headers.get_all("x-a"), req.header("X-A"), req.content_type) == (["1", "2"], "1", "text/plain")
    assert req.query == {"limit": ["5"], "tag": ["a", "b"]}
    assert (req.body, req.source_ip, req.gateway_request_id, req.stage, req.domain) == (
        b"hi", "127.0.0.1", "gw-req-1", "test", "example.test")


def test_single_value_maps_are_used_when_multi_value_ones_are_absent() -> None:
    req = parsed(multiValueHeaders=None, headers={"Accept": "application/json"}, queryStringParameters={"a": "1"})
    assert (req.header("accept"), req.query) == ("application/json", {"a": ["1"]})


def test_a_base64_body_is_decoded_and_a_bad_one_refused() -> None:
    assert parsed(body=base64.b64encode(b"\x00\xff").decode(), isBase64Encoded=True).body == b"\x00\xff"
    with pytest.raises(ApiError) as info:
        parsed(body="not base64!", isBase64Encoded=True)
    assert (info.value.code, info.value.detail) == ("invalid_request", "The request body is not valid base64.")


@pytest.mark.parametrize("bad", [None, [], {"path": "/x"}, {"httpMethod": 7}])
def test_what_is_not_a_proxy_event_is_invalid_request(bad: Any) -> None:
    with pytest.raises(ApiError) as info:
        Request.from_event(bad)
    assert (info.value.code, info.value.detail) == (
        "invalid_request", "The event is not an API Gateway REST proxy event.")


def test_an_unparsed_event_keeps_its_path_when_it_has_one() -> None:
    assert Request.unparsed({"path": "/charges"}, "r-1").path == "/charges"
    req = Request.unparsed("garbage", "r-2")
    assert (req.path, req.request_id, req.gateway_request_id, req.method) == ("/", "r-2", "r-2", "")


def test_the_content_type_is_its_media_type_only() -> None:
    req = parsed(multiValueHeaders={"Content-Type": ["Application/X-WWW-Form-Urlencoded; charset=UTF-8"]})
    assert req.content_type == "application/x-www-form-urlencoded"


def test_a_form_body_keeps_order_repeats_and_blanks() -> None:
    assert parsed(body="b=2&a=1&b=3&c=").form() == [("b", "2"), ("a", "1"), ("b", "3"), ("c", "")]


@pytest.mark.parametrize(("body", "detail"), [
    ("a=%ff", "The form body is not valid application/x-www-form-urlencoded."),
])
def test_a_form_body_that_is_not_utf8_is_invalid_request(body: str, detail: str) -> None:
    with pytest.raises(ApiError) as info:
        parsed(body=body).form()
    assert (info.value.code, info.value.detail) == ("invalid_request", detail)
    with pytest.raises(ApiError) as raw:
        parsed(body=base64.b64encode(b"a=\xff").decode(), isBase64Encoded=True).form()
    assert raw.value.detail == "The form body is not valid UTF-8."
