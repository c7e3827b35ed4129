"""oauth.logout.endpoint: the sign-out request's parameters and checks before any session is touched (OpenID Connect
RP-Initiated Logout 1.0 sections 2-3)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.oauth.logout.endpoint import logout
from authgate_cli.local.events import HttpRequest, build_event
from tests.demo import Demo


def request(method: str, params: list[tuple[str, str]], content_type: str = "application/x-www-form-urlencoded",
            cookie: str | None = None) -> Request:
    headers = [("Host", "127.0.0.1:3000"), *([("Cookie", cookie)] if cookie else [])]
    if method == "GET":
        raw = HttpRequest("GET", "/oauth/logout", urlencode(params), headers)
    else:
        raw = HttpRequest("POST", "/oauth/logout", "", [*headers, ("Content-Type", content_type)],
                          urlencode(params).encode())
    return Request.from_event(build_event(raw, resource="/oauth/logout", path_params=None))


def refused(req: Request) -> ApiError:
    with pytest.raises(ApiError) as info:
        logout(req)
    return info.value


def test_without_a_session_or_a_redirect_the_answer_is_the_signed_out_page() -> None:
    done = logout(request("GET", []))
    assert (done.status, "Set-Cookie" in done.multi_headers) == (200, False)
    assert "You are signed out." in done.body


@pytest.mark.parametrize(("method", "params", "content_type", "detail"), [
    ("POST", [], "application/json", "A sign-out request must be posted as application/x-www-form-urlencoded."),
    ("GET", [("state", "a"), ("state", "b")], "", "The state parameter is repeated."),
    ("GET", [("post_logout_redirect_uri", "https://app.example/after")], "",
     "post_logout_redirect_uri needs client_id or id_token_hint to say which application it belongs to."),
    ("GET", [("id_token_hint", "not-a-token")], "", "The id_token_hint is not an ID token this server issued."),
])
def test_a_malformed_request_is_refused_on_a_page_before_anything_is_read(
        method: str, params: list[tuple[str, str]], content_type: str, detail: str) -> None:
    error = refused(request(method, params, content_type or "application/x-www-form-urlencoded"))
    assert (error.code, error.status, error.detail) == ("invalid_request", 400, detail)


def test_an_unregistered_post_logout_redirect_uri_is_refused(demo: Demo) -> None:
    error = refused(request("GET", [("client_id", "demo-web"), ("post_logout_redirect_uri", "https://evil.example/")]))
    assert (error.code, error.detail) == ("invalid_request",
                                          "The post_logout_redirect_uri is not registered for this client.")
