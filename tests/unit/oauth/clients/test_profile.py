"""authgate.oauth.clients.profile: what the fapi2 profile demands, decided from the registration alone."""

from __future__ import annotations

import pytest

from authgate.clients.model import Client
from authgate.errors import ApiError
from authgate.oauth.clients import profile as client_profile

PLAIN = Client(client_id="c", tenant_id="t", environment="local", client_type="confidential", secret_hash="h",
               redirect_uris=("https://app.example/cb",), grant_types=("authorization_code", "password"),
               scopes=("charges:read",))
FAPI = PLAIN._replace(profile="fapi2", secret_hash=None, token_endpoint_auth_method="private_key_jwt")


def test_a_plain_client_keeps_its_registered_behaviour() -> None:
    assert client_profile.allowed_auth_methods(PLAIN) == ("client_secret_basic", "client_secret_post")
    assert not client_profile.requires_pushed_request(PLAIN) and not client_profile.requires_dpop(PLAIN)
    client_profile.check_grant(PLAIN, "password")
    client_profile.check_authorization(PLAIN, False, "", "http://app.example/cb")


def test_the_fapi2_profile_overrides_whatever_the_registration_says() -> None:
    # Even a fapi2 record written with a secret method is held to private_key_jwt (runtime, not CLI).
    loose = FAPI._replace(token_endpoint_auth_method="client_secret_basic", secret_hash="h")
    assert client_profile.allowed_auth_methods(loose) == ("private_key_jwt",)
    assert client_profile.requires_pushed_request(FAPI) and client_profile.requires_dpop(FAPI)
    assert client_profile.code_ttl(FAPI) <= 60


def test_fapi2_refuses_the_password_grant() -> None:
    with pytest.raises(ApiError) as refused:
        client_profile.check_grant(FAPI, "password")
    assert (refused.value.code, refused.value.detail) == (
        "unauthorized_client", "This client's profile (FAPI 2.0) does not allow the password grant.")


@pytest.mark.parametrize(("uri", "allowed"), [
    ("https://app.example/cb", True), ("http://127.0.0.1:8765/fapi/callback", True), ("http://[::1]:80/cb", True),
    ("http://localhost/cb", False), ("http://app.example/cb", False), ("http://127.0.0.1.evil.example/cb", False),
    ("custom://cb", False),
])
def test_fapi2_redirect_uris_are_https_or_loopback(uri: str, allowed: bool) -> None:
    assert client_profile.fapi2_redirect_uri_allowed(uri) is allowed
    if not allowed:
        with pytest.raises(ApiError):
            client_profile.check_authorization(FAPI, True, "x" * 43, uri)


def test_fapi2_code_lifetime_is_capped_at_60_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_AUTH_CODE_TTL", "300")
    caches.reset()
    try:
        assert (client_profile.code_ttl(PLAIN), client_profile.code_ttl(FAPI)) == (300, 60)
    finally:
        monkeypatch.delenv("AUTHGATE_AUTH_CODE_TTL")
        caches.reset()
