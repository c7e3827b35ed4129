"""WWW-Authenticate values (RFC 6750 3, RFC 7617, RFC 9110 5.6.4) and the authorization redirect."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from hypothesis import given
from hypothesis import strategies as st

from authgate.errors.challenges import basic, bearer, quoted_string
from authgate.http.shapes.oauth import authorization_redirect
from tests.demo import ISSUER


def test_bearer_without_credentials_has_no_error():
    assert bearer() == 'Bearer realm="api"'


def test_bearer_with_error_description_and_scope():
    assert bearer(error="insufficient_scope", description="Needs charges:write.", scope="charges:write") == (
        'Bearer realm="api", error="insufficient_scope", error_description="Needs charges:write.", '
        'scope="charges:write"')


def test_basic_for_the_token_endpoint():
    assert basic() == 'Basic realm="oauth"'


def test_quoted_string_escapes_backslash_and_quote_and_drops_controls():
    assert quoted_string('a"b\\c\r\nd\x00e\x7f') == '"a\\"b\\\\c  d e "'


@given(st.text())
def test_no_value_can_break_out_of_the_header(text):
    for value in (bearer(realm=text, error="invalid_token", description=text, scope=text), basic(text)):
        assert all(" " <= ch <= "~" for ch in value)


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
