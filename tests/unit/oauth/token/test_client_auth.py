"""oauth.token.client_auth: Basic credential decoding (RFC 6749 2.3.1)."""

from __future__ import annotations

import base64

import pytest

from authgate.errors import ApiError
from authgate.oauth.token.client_auth import _basic


def b(raw: str) -> str:
    return "Basic " + base64.b64encode(raw.encode()).decode()


def test_basic_parts_are_form_urldecoded() -> None:
    assert _basic(b("my%3Aclient:p%40ss+word%2B")) == ("my:client", "p@ss word+")
    assert _basic(b("id:sec:ret")) == ("id", "sec:ret")
    assert _basic(b("id:")) == ("id", "")


@pytest.mark.parametrize("header", ["Basic ", "Basic @@@", b("no-colon"), "Basic " + base64.b64encode(b"\xff:x").decode()])
def test_malformed_basic_is_invalid_request(header: str) -> None:
    with pytest.raises(ApiError) as info:
        _basic(header)
    assert info.value.code == "invalid_request"


def creds_of(form: dict[str, str], authorization: list[str] | None = None) -> object:
    from authgate.http.request import Request
    from authgate.oauth.token.client_auth import read_credentials
    from tests.events import event

    e = event("POST", "/oauth/token")
    e["multiValueHeaders"] = {"Authorization": authorization} if authorization else {}
    return read_credentials(Request.from_event(e), form)


def test_each_method_is_recognised() -> None:
    from authgate.oauth.token.client_auth import Credentials

    assert creds_of({}, [b("svc:s3cret")]) == Credentials("client_secret_basic", "svc", "s3cret")
    assert creds_of({"client_id": "svc"}, [b("svc:s3cret")]) == Credentials("client_secret_basic", "svc", "s3cret")
    assert creds_of({"client_id": "svc", "client_secret": "s3cret"}) == Credentials("client_secret_post", "svc", "s3cret")
    assert creds_of({"client_id": "web"}) == Credentials("none", "web", None)
    assert creds_of({}) is None


@pytest.mark.parametrize(("form", "authorization", "detail"), [
    ({"client_secret": "s"}, None, "client_secret was sent without client_id."),
    ({"client_secret": "s"}, [b("svc:s")], "Use one client authentication method, not Basic and client_secret together."),
    ({"client_id": "other"}, [b("svc:s")], "client_id in the body differs from the Basic credentials."),
    ({}, [b("svc:s"), b("svc:s")], "The Authorization header is repeated."),
    ({"client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", "client_assertion": "x.y.z",
      "client_secret": "s"}, None,
     "Use one client authentication method, not client_assertion and a client secret together."),
    ({"client_assertion_type": "bearer", "client_assertion": "x.y.z"}, None,
     "client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer (RFC 7523 2.2)."),
    ({"client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}, None,
     "client_assertion_type was sent without client_assertion."),
])
def test_more_than_one_method_or_a_malformed_one_is_invalid_request(form: dict[str, str],
                                                                   authorization: list[str] | None,
                                                                   detail: str) -> None:
    with pytest.raises(ApiError) as info:
        creds_of(form, authorization)
    assert (info.value.code, info.value.status, info.value.detail) == ("invalid_request", 400, detail)


def test_another_authorization_scheme_is_invalid_client_with_the_basic_challenge() -> None:
    with pytest.raises(ApiError) as info:
        creds_of({}, ["Bearer abc"])
    assert (info.value.code, info.value.status, info.value.headers) == (
        "invalid_client", 401, {"WWW-Authenticate": 'Basic realm="oauth"'})
