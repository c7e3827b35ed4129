"""authgate.http.shapes.oauth: the authorization error redirect (RFC 6749 4.1.2.1, 3.1.2; RFC 9207 2)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from authgate.errors import ApiError
from authgate.http.context import AuthorizationRedirect
from authgate.http.request import Request
from authgate.http.shapes.oauth import authorization_redirect, authorize_error
from authgate_cli.local.events import HttpRequest, build_event
from tests.demo import ISSUER


def test_redirect_keeps_the_registered_query_and_adds_iss():
    location = authorization_redirect("https://client.example/cb?a=1&b=two%20words", "invalid_scope",
                                      "Scope charges:refund is forbidden.", "st&ate", ISSUER)
    assert location == ("https://client.example/cb?a=1&b=two+words&error=invalid_scope"
                        "&error_description=Scope+charges%3Arefund+is+forbidden.&state=st%26ate"
                        "&iss=http%3A%2F%2F127.0.0.1%3A3000")


def test_redirect_without_state_or_description():
    assert authorization_redirect("http://127.0.0.1:8765/callback", "access_denied") == (
        "http://127.0.0.1:8765/callback?error=access_denied")


def test_redirect_never_repeats_our_parameters():
    location = authorization_redirect("https://c.example/cb?error=x&state=old", "server_error", state="new")
    assert parse_qsl(urlsplit(location).query) == [("error", "server_error"), ("state", "new")]


def test_unmet_authentication_requirements_is_its_own_error_at_the_authorization_endpoint():
    """OpenID Connect Core Unmet Authentication Requirements 1.0: the error value itself, not invalid_request."""
    from authgate.http.shapes.oauth import AUTHORIZE_CODES, oauth_error_code

    error = ApiError("unmet_authentication_requirements", "mfa cannot be met.")
    assert (error.status, oauth_error_code(error, AUTHORIZE_CODES)) == (400, "unmet_authentication_requirements")



def authorize_request(redirect: AuthorizationRedirect) -> Request:
    """A GET /oauth/authorize whose redirect the flow has trusted as `redirect`."""
    raw = HttpRequest("GET", "/oauth/authorize", "", [("Host", "127.0.0.1:3000")])
    request = Request.from_event(build_event(raw, resource="/oauth/authorize", path_params=None))
    request.context.redirect = redirect
    return request


def test_an_error_is_redirected_only_where_the_redirect_is_followed() -> None:
    """RFC 9700 4.11.2: a self-registered client's redirect URI is offered on the page, not followed."""
    error = ApiError("invalid_scope", "Unknown scope x.")
    location = ("https://app.example/cb?error=invalid_scope&error_description=Unknown+scope+x.&state=s"
                "&iss=http%3A%2F%2F127.0.0.1%3A3000")
    followed = authorize_error(error, authorize_request(AuthorizationRedirect("https://app.example/cb", "s")))
    assert (followed.status, followed.headers["Location"], followed.body) == (302, location, "")
    offered = authorize_error(error, authorize_request(
        AuthorizationRedirect("https://app.example/cb", "s", follow=False)))
    assert offered.status == 400 and "Location" not in offered.headers
    link = f'<a href="{location.replace("&", "&amp;")}" rel="noreferrer">Continue to https://app.example</a>'
    assert isinstance(offered.body, str) and link in offered.body
