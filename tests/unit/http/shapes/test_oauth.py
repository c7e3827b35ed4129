"""authgate.http.shapes.oauth: the authorization error redirect (RFC 6749 4.1.2.1, 3.1.2; RFC 9207 2)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from authgate.http.shapes.oauth import authorization_redirect
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
    from authgate.errors import ApiError
    from authgate.http.shapes.oauth import AUTHORIZE_CODES, oauth_error_code

    error = ApiError("unmet_authentication_requirements", "mfa cannot be met.")
    assert (error.status, oauth_error_code(error, AUTHORIZE_CODES)) == (400, "unmet_authentication_requirements")
