"""http.body.json_object: 415 for non-JSON content types, 400 malformed_json with a pointer."""

from __future__ import annotations

import json

import pytest

from authgate.errors import ApiError, FieldError
from authgate.http.body import MAX_DEPTH, json_object
from tests.events import request


def parse(body: str | bytes, content_type: str | None = "application/json"):
    headers = {"Content-Type": content_type} if content_type else {}
    req = request(headers)
    req.body = body if isinstance(body, bytes) else body.encode("utf-8")
    return json_object(req)


def failure(body: str | bytes, content_type: str | None = "application/json") -> ApiError:
    with pytest.raises(ApiError) as caught:
        parse(body, content_type)
    return caught.value


@pytest.mark.parametrize("content_type", [
    "application/json", "application/json; charset=utf-8", "Application/JSON; charset=\"UTF-8\"",
    "application/merge-patch+json", "application/vnd.api+json"])
def test_json_content_types_are_accepted(content_type):
    assert parse('{"amount": 100}', content_type) == {"amount": 100}


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded",
                                          "application/json; charset=latin-1", "application/jsonx",
                                          "application/vnd.api+json; charset=utf-8"])
def test_other_content_types_are_415(content_type):
    error = failure('{"amount": 100}', content_type)
    assert (error.code, error.status) == ("unsupported_media_type", 415)


@pytest.mark.parametrize("body, detail", [
    ("", "The body is empty; send a JSON object."),
    ("{", "The body is not valid JSON: Expecting property name enclosed in double quotes at line 1 column 2."),
    ('{"a": NaN}', "The body is not valid JSON, or nests too deeply."),
    ('{"a": 1, "a": 2}', "The member 'a' appears more than once."),
    ("[1, 2]", "The body must be a JSON object, not list."),
    ("null", "The body must be a JSON object, not null."),
    (b'{"a": "\xff"}', "The body is not valid UTF-8 (byte 7)."),
    ("[" * 100000, "The body is not valid JSON, or nests too deeply."),
    ('{"a":' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1), f"The body nests deeper than {MAX_DEPTH} levels."),
])
def test_malformed_bodies_are_400_with_a_pointer(body, detail):
    error = failure(body)
    assert (error.code, error.status, error.detail, error.field_errors) == (
        "malformed_json", 400, detail, (FieldError("", detail),))


def test_nested_duplicates_are_rejected_too():
    assert failure('{"a": {"b": 1, "b": 1}}').detail == "The member 'b' appears more than once."


def test_bom_is_ignored_and_unicode_kept():
    assert parse('\ufeff{"d": "caf\u00e9"}'.encode("utf-8")) == {"d": "café"}


def test_depth_at_the_bound_is_fine():
    body = '{"a":' * (MAX_DEPTH - 1) + "1" + "}" * (MAX_DEPTH - 1)
    assert isinstance(parse(body), dict)
    json.loads(body)


def test_an_untyped_body_is_json_where_the_route_says_so():
    """The Shared Signals examples send no Content-Type: `untyped_json` reads such a body as JSON, a declared type
    must still be JSON."""
    req = request({})
    req.body = b'{"stream_id": "s1"}'
    assert json_object(req, untyped_json=True) == {"stream_id": "s1"}
    typed = request({"Content-Type": "text/plain"})
    typed.body = b'{"stream_id": "s1"}'
    with pytest.raises(ApiError) as caught:
        json_object(typed, untyped_json=True)
    assert (caught.value.code, caught.value.status) == ("unsupported_media_type", 415)
