"""Error-shape negotiation (docs/error-responses.md, Negotiation) and JSON:API 1.1 content-negotiation rules."""

from __future__ import annotations

import pytest

from authgate.errors import ApiError
from authgate.http.context import RequestContext
from authgate.http.negotiation import (
    check_jsonapi_media_types,
    error_shape,
    parse_accept,
    preferred,
)
from tests.events import request


@pytest.mark.parametrize("accept, registered, shape", [
    (None, None, "problem"),
    ("*/*", None, "problem"),
    ("application/json", None, "problem"),
    ("application/problem+json", None, "problem"),
    ("application/vnd.api+json", None, "jsonapi"),
    (None, "legacy-a", "legacy-a"),
    ("*/*", "legacy-b", "legacy-b"),
    ("application/json, */*;q=0.5", "legacy-b", "legacy-b"),
    ("application/problem+json", "legacy-a", "problem"),
    ("application/vnd.api+json", "legacy-b", "jsonapi"),
    ("application/problem+json;q=0.5, application/vnd.api+json", None, "jsonapi"),
    ("application/problem+json, application/vnd.api+json", None, "problem"),
    ("application/vnd.api+json;q=0", "legacy-a", "legacy-a"),
    ('application/vnd.api+json; profile="https://example.com/p"', None, "jsonapi"),
    ("application/vnd.api+json; charset=utf-8", None, "problem"),
    ("application/vnd.api+json; ext=\"https://x.example/ext\"", None, "problem"),
    ("application/problem+json;q=0, application/vnd.api+json;q=0", "legacy-a", "legacy-a"),
    ("garbage,,;;", "problem", "problem"),
])
def test_error_shape(accept, registered, shape):
    headers = {"Accept": accept} if accept is not None else {}
    assert error_shape(request(headers, context=RequestContext(error_format=registered))) == shape


def test_q_values_are_parsed():
    ranges = parse_accept('text/html;q=0.2, application/json;q="0.9", */*;q=0')
    assert [(r.full, r.q) for r in ranges] == [("text/html", 0.2), ("application/json", 0.9), ("*/*", 0.0)]


def test_preferred_respects_q_zero_and_specificity():
    req = request({"Accept": "text/html;q=0, */*;q=0.1, application/json"})
    assert preferred(req, ["text/html", "application/json"]) == "application/json"
    assert preferred(request({"Accept": "text/html;q=0"}), ["text/html"]) is None
    assert preferred(request({}), ["text/html", "application/json"]) == "text/html"


@pytest.mark.parametrize("content_type", [
    "application/vnd.api+json; charset=utf-8", 'application/vnd.api+json; ext="https://x.example/e"',
    "application/vnd.api+json;foo=bar"])
def test_parametrised_jsonapi_content_type_is_415(content_type):
    with pytest.raises(ApiError) as caught:
        check_jsonapi_media_types(request({"Content-Type": content_type}))
    assert (caught.value.code, caught.value.status) == ("unsupported_media_type", 415)


def test_jsonapi_content_type_with_profile_is_fine():
    check_jsonapi_media_types(request({"Content-Type": 'application/vnd.api+json; profile="https://p.example"'}))


def test_accept_where_every_jsonapi_instance_has_parameters_is_406():
    with pytest.raises(ApiError) as caught:
        check_jsonapi_media_types(request({"Accept": "application/vnd.api+json; charset=utf-8, "
                                                     "application/vnd.api+json; v=2"}))
    assert (caught.value.code, caught.value.status) == ("not_acceptable", 406)


def test_accept_with_one_plain_jsonapi_instance_is_fine():
    check_jsonapi_media_types(request({"Accept": "application/vnd.api+json; v=2, application/vnd.api+json"}))
