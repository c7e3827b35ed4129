"""oauth.clients.registration.errors: each refusal of RFC 7591 3.2.2 and RFC 7592 3, as the catalogue has it."""

from __future__ import annotations

from authgate.oauth.clients.registration.errors import (
    invalid_metadata,
    invalid_registration_token,
    metadata_problem,
    not_enabled,
)
from authgate.oauth.clients.stated_metadata import MetadataProblem


def test_switched_off_is_registration_not_enabled() -> None:
    error = not_enabled()
    assert (error.code, error.status, error.oauth_error, error.headers) == (
        "registration_not_enabled", 403, "access_denied", {})
    assert error.detail.startswith("Dynamic client registration is not enabled on this deployment")


def test_a_broken_rule_names_its_member_and_a_redirect_uri_is_its_own_error() -> None:
    member = metadata_problem(MetadataProblem("scope: bad."))
    redirect = metadata_problem(MetadataProblem("redirect_uris must be a non-empty array of URIs.", redirect=True))
    assert (member.code, member.status, member.oauth_error, member.detail) == (
        "invalid_client_metadata", 400, "invalid_client_metadata", "scope: bad.")
    assert (redirect.code, redirect.status, redirect.oauth_error) == ("invalid_redirect_uri", 400, "invalid_redirect_uri")
    assert invalid_metadata("jwks: no keys.").detail == "jwks: no keys."


def test_a_bad_registration_token_challenges_with_bearer() -> None:
    sent = invalid_registration_token("Not valid.")
    missing = invalid_registration_token("Missing.", presented=False)
    assert (sent.code, sent.status, sent.oauth_error, sent.headers) == (
        "invalid_registration_token", 401, "invalid_token",
        {"WWW-Authenticate": 'Bearer realm="oauth", error="invalid_token"'})
    assert missing.headers == {"WWW-Authenticate": 'Bearer realm="oauth"'}
