"""authgate.errors.challenges: WWW-Authenticate values (RFC 6750 3, RFC 7617, RFC 9110 5.6.4)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from authgate.errors.challenges import basic, bearer, quoted_string


def test_bearer_without_credentials_has_no_error():
    assert bearer() == 'Bearer realm="api"'


def test_bearer_with_error_description_and_scope():
    assert bearer(error="insufficient_scope", description="Needs charges:write.", scope="charges:write") == (
        'Bearer realm="api", error="insufficient_scope", error_description="Needs charges:write.", '
        'scope="charges:write"')


def test_a_step_up_challenge_names_the_acr_values_and_the_max_age():
    """RFC 9470 3 (its examples quote both values; RFC 9110 11.2 makes token and quoted-string equal)."""
    from authgate.errors.challenges import StepUp, resource

    assert bearer(error="insufficient_user_authentication", description="Needs mfa.",
                  step_up=StepUp(("mfa",), 300)) == (
        'Bearer realm="api", error="insufficient_user_authentication", error_description="Needs mfa.", '
        'acr_values="mfa", max_age="300"')
    assert resource("dpop", ("ES256",), "insufficient_user_authentication", "Too old.",
                    step_up=StepUp(("mfa", "password"))) == (
        'DPoP algs="ES256", error="insufficient_user_authentication", error_description="Too old.", '
        'acr_values="mfa password", Bearer realm="api"')


def test_basic_for_the_token_endpoint():
    assert basic() == 'Basic realm="oauth"'


def test_quoted_string_escapes_backslash_and_quote_and_drops_controls():
    assert quoted_string('a"b\\c\r\nd\x00e\x7f') == '"a\\"b\\\\c  d e "'


@given(st.text())
def test_no_value_can_break_out_of_the_header(text):
    for value in (bearer(realm=text, error="invalid_token", description=text, scope=text), basic(text)):
        assert all(" " <= ch <= "~" for ch in value)
