"""tokens.bearer: the access token of a request (RFC 6750 2.1 only) and the RFC 6750 3.1 errors with their challenge."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.tokens.bearer import NO_CREDENTIALS, extract_credentials, insufficient_scope
from tests.events import event

TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln"


def request(headers: dict[str, list[str]] | None = None, query: dict[str, list[str]] | None = None,
            form: str = "") -> Request:
    e: dict[str, Any] = event("POST" if form else "GET", "/charges", body=form)
    e["multiValueHeaders"] = {**(headers or {}),
                              **({"Content-Type": ["application/x-www-form-urlencoded"]} if form else {})}
    e["multiValueQueryStringParameters"] = query
    return Request.from_event(e)


def refused(req: Request) -> tuple[str, int, str, str]:
    with pytest.raises(ApiError) as info:
        extract_credentials(req)
    return info.value.code, info.value.status, info.value.detail, info.value.headers["WWW-Authenticate"]


@pytest.mark.parametrize(("header", "expected"), [
    (f"Bearer {TOKEN}", ("bearer", TOKEN)),
    (f"bearer {TOKEN}", ("bearer", TOKEN)),  # the scheme is case-insensitive (RFC 9110 11.1)
    (f"DPoP {TOKEN}", ("dpop", TOKEN)),
    (f"Bearer {TOKEN}  ", ("bearer", TOKEN)),
])
def test_the_authorization_header_gives_scheme_and_token(header: str, expected: tuple[str, str]) -> None:
    assert extract_credentials(request({"Authorization": [header]})) == expected


def test_no_credentials_is_401_without_an_error_code() -> None:
    assert refused(request()) == ("unauthenticated", 401, NO_CREDENTIALS, 'Bearer realm="api"')
    # Another scheme is no supported credentials either.
    assert refused(request({"Authorization": ["Basic dTpw"]}))[:2] == ("unauthenticated", 401)
    # A line break inside the value is no credentials at all (the credentials never span lines).
    assert refused(request({"Authorization": [f"Bearer {TOKEN}\nx"]}))[:2] == ("unauthenticated", 401)


def test_a_token_in_the_query_or_form_is_not_accepted() -> None:
    detail = "The access_token parameter is not accepted; send Authorization: Bearer <token>."
    assert refused(request(query={"access_token": [TOKEN]})) == ("unauthenticated", 401, detail, 'Bearer realm="api"')
    assert refused(request(form=f"access_token={TOKEN}"))[:3] == ("unauthenticated", 401, detail)


@pytest.mark.parametrize(("req", "detail"), [
    (request({"Authorization": [f"Bearer {TOKEN}", f"Bearer {TOKEN}"]}),
     "The request carries more than one Authorization header."),
    (request({"Authorization": ["Bearer"]}), "The Bearer credentials are empty."),
    (request({"Authorization": [f"Bearer {TOKEN} {TOKEN}"]}),
     "The Authorization header must be Bearer followed by exactly one token (token68 syntax)."),
    (request({"Authorization": [f"DPoP\t{TOKEN}"]}),
     "The Authorization header must be DPoP followed by exactly one token (token68 syntax)."),
    (request({"Authorization": [f"Bearer {TOKEN}"]}, query={"access_token": [TOKEN]}),
     "The access token was sent by more than one method; send it only in the Authorization header."),
])
def test_a_malformed_request_is_400_invalid_request(req: Request, detail: str) -> None:
    assert refused(req) == ("invalid_request", 400, detail,
                            f'Bearer realm="api", error="invalid_request", error_description="{detail}"')


def test_a_missing_scope_is_403_naming_the_scope() -> None:
    error = insufficient_scope("charges:write")
    assert (error.code, error.status, error.detail) == (
        "insufficient_scope", 403, "The access token lacks the scope charges:write.")
    assert error.headers["WWW-Authenticate"] == (
        'Bearer realm="api", error="insufficient_scope", '
        'error_description="The access token lacks the scope charges:write.", scope="charges:write"')
