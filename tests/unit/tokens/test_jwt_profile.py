"""tokens.jwt_profile (RFC 9068, RFC 9728 3.1): the charges resource's identifier and where its metadata lives."""

from __future__ import annotations

from authgate.tokens.jwt_profile import REQUIRED_CLAIMS, default_audience, resource_metadata_url


def test_the_audience_and_the_metadata_url_follow_the_issuer_with_or_without_a_slash() -> None:
    for issuer in ("https://auth.example.com/prod", "https://auth.example.com/prod/"):
        assert default_audience(issuer) == "https://auth.example.com/prod/charges"
        assert resource_metadata_url(issuer) == (
            "https://auth.example.com/prod/.well-known/oauth-protected-resource/charges")


def test_the_required_claims_are_rfc_9068_2_2_and_the_tenant() -> None:
    assert set(REQUIRED_CLAIMS) == {"iss", "sub", "aud", "exp", "iat", "jti", "client_id", "scope", "tenant"}
