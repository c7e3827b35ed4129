"""oauth.authorization.endpoint: get_authorize and post_authorize called on built Requests (RFC 6749 4.1.1-4.1.2, RFC 9126 4).

What is asserted besides the response: whether the redirect URI is trusted yet (request.context.redirect),
which decides whether an error is a page or a redirect.
"""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from authgate import caches
from authgate.errors import ApiError
from authgate.http.context import AuthorizationRedirect
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.interaction.messages import (
    MISSING_CREDENTIALS,
    MISSING_DECISION,
    STALE_FORM,
    WRONG_CREDENTIALS,
)
from authgate.oauth.authorization.endpoint import get_authorize, post_authorize
from authgate.stores.pushed_requests import PushedRequestStore
from authgate_cli.local.events import HttpRequest, build_event
from tests.demo import ISSUER, WEB_REDIRECT, Demo
from tests.functional.authorize_support import web_params

FORM = "application/x-www-form-urlencoded"


@pytest.fixture
def site(demo: Demo, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The demo stack with a session secret (the form's state is sealed with it)."""
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "test-session-secret-0123456789abcdef")
    caches.reset()
    yield


def get(params: list[tuple[str, str]], cookie: str | None = None) -> Request:
    headers = [("Host", "127.0.0.1:3000"), ("Accept", "text/html")] + ([("Cookie", cookie)] if cookie else [])
    raw = HttpRequest("GET", "/oauth/authorize", urlencode(params), headers)
    return Request.from_event(build_event(raw, resource="/oauth/authorize", path_params=None))


def post(fields: list[tuple[str, str]], cookie: str | None, content_type: str = FORM) -> Request:
    headers = [("Host", "127.0.0.1:3000"), ("Content-Type", content_type)] + ([("Cookie", cookie)] if cookie else [])
    raw = HttpRequest("POST", "/oauth/authorize", "", headers, urlencode(fields).encode())
    return Request.from_event(build_event(raw, resource="/oauth/authorize", path_params=None))


class Hidden(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "input" and a.get("type") == "hidden":
            self.fields[str(a["name"])] = str(a.get("value") or "")


def form_of(response: Response) -> tuple[list[tuple[str, str]], str | None]:
    """The page's hidden fields and the binding cookie it set (name=value)."""
    parser = Hidden()
    parser.feed(response.body)
    cookies = response.multi_headers.get("Set-Cookie") or []
    return list(parser.fields.items()), (cookies[0].split(";", 1)[0] if cookies else None)


def shown() -> tuple[list[tuple[str, str]], str | None]:
    response = get_authorize(get(web_params()))
    assert response.status == 200
    return form_of(response)


def refused(request: Request, handler: object = get_authorize) -> ApiError:
    with pytest.raises(ApiError) as info:
        handler(request)  # type: ignore[operator]
    return info.value


# ------------------------------------------------------------------ GET

def test_a_valid_request_shows_the_form_sets_the_binding_and_trusts_the_redirect(site: None) -> None:
    request = get(web_params())
    response = get_authorize(request)
    assert (response.status, response.headers["Content-Type"], response.headers["Cache-Control"]) == (
        200, "text/html; charset=utf-8", "no-store")
    (cookie,) = response.multi_headers["Set-Cookie"]
    # Local issuer is http: no Secure attribute; HttpOnly and SameSite=Strict always.
    assert cookie.startswith("authgate_binding=") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert "Secure" not in cookie
    fields, _ = form_of(response)
    assert [name for name, _ in fields] == ["request_blob", "csrf"]
    assert request.context.redirect == AuthorizationRedirect(WEB_REDIRECT, "xyz-state")


def test_an_existing_binding_cookie_is_kept(site: None) -> None:
    _, cookie = shown()
    _, again = form_of(get_authorize(get(web_params(), cookie=cookie)))
    assert again == cookie  # the same binding, its lifetime renewed


def test_an_unknown_client_is_a_page_never_a_redirect(site: None) -> None:
    request = get(web_params(client_id="nobody"))
    error = refused(request)
    assert (error.code, error.status) == ("unknown_client", 400)
    assert request.context.redirect is None


def test_an_unregistered_redirect_uri_is_a_page(site: None) -> None:
    request = get(web_params(redirect_uri="https://evil.example/cb"))
    assert refused(request).code == "redirect_uri_mismatch"
    assert request.context.redirect is None


def test_after_the_redirect_is_trusted_errors_redirect(site: None) -> None:
    request = get(web_params(scope="charges:refund"))  # forbidden by the demo tenant
    assert refused(request).code == "invalid_scope"
    assert request.context.redirect == AuthorizationRedirect(WEB_REDIRECT, "xyz-state")


def test_a_client_that_must_push_is_refused_on_the_page(site: None) -> None:
    request = get(web_params(client_id="demo-fapi", redirect_uri="http://127.0.0.1:8765/fapi/callback"))
    error = refused(request)
    assert (error.code, error.detail) == (
        "invalid_request", ("This client must push its authorization requests (POST /oauth/par) and send only "
                           "client_id and request_uri here (RFC 9126)."))
    assert request.context.redirect is None


def test_a_pushed_request_is_used_once_and_only_its_parameters_count(site: None) -> None:
    request_uri, _ = PushedRequestStore().create("demo-web", {k: [v] for k, v in web_params()})
    request = get([("client_id", "demo-web"), ("request_uri", request_uri), ("state", "ignored")])
    assert get_authorize(request).status == 200
    assert request.context.redirect == AuthorizationRedirect(WEB_REDIRECT, "xyz-state")
    again = get([("client_id", "demo-web"), ("request_uri", request_uri)])
    assert refused(again).code == "invalid_request_uri"


def test_a_request_uri_pushed_by_another_client_is_refused(site: None) -> None:
    request_uri, _ = PushedRequestStore().create("demo-web", {k: [v] for k, v in web_params()})
    spa = get([("client_id", "demo-spa"), ("request_uri", request_uri)])
    assert refused(spa).code == "invalid_request_uri"
    assert spa.context.redirect is None


# ------------------------------------------------------------------ POST

@pytest.mark.slow
def test_approval_redirects_303_with_code_state_and_iss(site: None) -> None:
    fields, cookie = shown()
    request = post(fields + [("username", "alice"), ("password", "alice-password"), ("decision", "approve")], cookie)
    response = post_authorize(request)
    assert (response.status, {k: v for k, v in response.headers.items() if k != "Location"}) == (
        303, {"Cache-Control": "no-store", "Pragma": "no-cache", "Referrer-Policy": "no-referrer"})
    location = urlsplit(response.headers["Location"])
    query = parse_qs(location.query)
    assert f"{location.scheme}://{location.netloc}{location.path}" == WEB_REDIRECT
    assert sorted(query) == ["code", "iss", "state"]
    assert (query["state"], query["iss"]) == (["xyz-state"], [ISSUER])
    from authgate.stores.codes import CodeStore

    assert CodeStore().consume(query["code"][0]).subject == "alice"


def test_deny_is_access_denied_on_the_redirect(site: None) -> None:
    fields, cookie = shown()
    request = post(fields + [("decision", "deny")], cookie)
    error = refused(request, post_authorize)
    assert (error.code, error.detail) == ("access_denied", "The user denied the request.")
    assert request.context.redirect == AuthorizationRedirect(WEB_REDIRECT, "xyz-state")


@pytest.mark.parametrize(("extra", "message", "status"), [
    ([("username", "alice"), ("password", "alice-password")], MISSING_DECISION, 200),
    ([("username", "alice"), ("decision", "approve")], MISSING_CREDENTIALS, 200),
    ([("username", "alice"), ("password", "wrong"), ("decision", "approve")], WRONG_CREDENTIALS, 200),
])
def test_an_incomplete_or_wrong_submission_reshows_the_same_form(site: None, extra: list[tuple[str, str]],
                                                                 message: str, status: int) -> None:
    fields, cookie = shown()
    response = post_authorize(post(fields + extra, cookie))
    assert response.status == status
    assert f'<p class="message error" role="alert">{message}</p>' in response.body
    again, new_cookie = form_of(response)
    assert again == fields and new_cookie is None  # the same state and CSRF token, no new binding
    assert 'value="alice"' in response.body


def test_a_form_without_its_binding_cookie_or_altered_is_stale(site: None) -> None:
    fields, cookie = shown()
    approve = [("username", "alice"), ("password", "alice-password"), ("decision", "approve")]
    for request in (post(fields + approve, None),
                    post([(k, v + "x" if k == "request_blob" else v) for k, v in fields] + approve, cookie),
                    post([(k, v + "x" if k == "csrf" else v) for k, v in fields] + approve, cookie)):
        error = refused(request, post_authorize)
        assert (error.code, error.status, error.detail) == ("invalid_request", 400, STALE_FORM)
        assert request.context.redirect is None


def test_the_form_must_be_form_encoded_and_fields_single(site: None) -> None:
    fields, cookie = shown()
    wrong_type = refused(post(fields, cookie, content_type="application/json"), post_authorize)
    assert (wrong_type.code, wrong_type.detail) == (
        "invalid_request", "The sign-in form must be posted as application/x-www-form-urlencoded.")
    repeated = refused(post(fields + [("decision", "approve"), ("decision", "deny")], cookie), post_authorize)
    assert (repeated.code, repeated.detail) == ("invalid_request", "The decision field is repeated.")


@pytest.mark.parametrize("field", ["factor_ticket", "change_ticket", "credential"])
def test_a_sign_in_form_carrying_another_steps_field_is_stale_never_rerouted(site: None, field: str) -> None:
    """The form's step is sealed with its request (password, here): a field of the second-factor step, the forced
    change or a passkey's ceremony added to it makes it stale, where it used to make it that step."""
    fields, cookie = shown()
    request = post(fields + [(field, "x"), ("username", "alice"), ("password", "alice-password"),
                             ("decision", "approve")], cookie)
    error = refused(request, post_authorize)
    assert (error.code, error.status, error.detail) == ("invalid_request", 400, STALE_FORM)
    assert request.context.redirect is None
