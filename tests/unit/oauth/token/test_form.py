"""oauth.token.form: the token, revocation and introspection endpoints' form body (RFC 6749 3.1, 3.2)."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.oauth.token.form import read_form
from tests.events import event

FORM = "application/x-www-form-urlencoded"


def request(body: str, content_type: str = FORM, query: dict[str, list[str]] | None = None) -> Request:
    e: dict[str, Any] = event("POST", "/oauth/token", body=body, headers={"Content-Type": content_type})
    e["multiValueQueryStringParameters"] = query
    return Request.from_event(e)


def refused(req: Request) -> str:
    with pytest.raises(ApiError) as info:
        read_form(req)
    assert (info.value.code, info.value.status) == ("invalid_request", 400)
    return info.value.detail


def test_parameters_are_read_once_each_and_empty_ones_are_omitted() -> None:
    assert read_form(request("grant_type=client_credentials&scope=&client_id=a%20b",
                             content_type="application/x-www-form-urlencoded; charset=utf-8")) == {
        "grant_type": "client_credentials", "client_id": "a b"}


@pytest.mark.parametrize(("req", "detail"), [
    (request('{"grant_type": "x"}', "application/json"),
     "The request body must be application/x-www-form-urlencoded (RFC 6749 3.2)."),
    (request("grant_type=x", query={"client_secret": ["s"]}),
     "Parameters must be sent in the request body, not the URI query."),
    (request("scope=a&scope=b"), "The parameter 'scope' is repeated (RFC 6749 3.2)."),
    (request("scope=&scope=b"), "The parameter 'scope' is repeated (RFC 6749 3.2)."),
    (request("code=abc%0Adef"), "The parameter 'code' contains control characters."),
])
def test_what_rfc_6749_does_not_allow_is_invalid_request(req: Request, detail: str) -> None:
    assert refused(req) == detail
