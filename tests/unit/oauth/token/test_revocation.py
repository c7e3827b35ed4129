"""oauth.token.revocation.post_revoke (RFC 7009): access tokens by jti, refresh tokens by family, 200 for the unknown."""

from __future__ import annotations

import pytest

from authgate.errors import ApiError
from authgate.oauth.token.revocation import post_revoke
from authgate.tokens.guard import active_access_token
from tests.demo import ISSUER, Demo
from tests.unit.oauth.token.form_requests import form_request, revoke, tokens_of_demo_web

OK = (200, {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"}, {})


def refresh_usable(token: str) -> bool:
    """The refresh token is active and its family not revoked (it could be rotated)."""
    from authgate.stores.refresh_tokens import RefreshTokenStore

    store = RefreshTokenStore()
    record = store.get(token)
    return record is not None and record.state == "active" and store.family_active(record.family_id)


@pytest.mark.parametrize("hint", [None, "access_token", "refresh_token", "something_else"])
def test_an_access_token_is_revoked_whatever_the_hint(demo: Demo, hint: str | None) -> None:
    grant = tokens_of_demo_web()
    assert active_access_token(grant["access_token"], issuer=ISSUER) is not None
    assert revoke(grant["access_token"], hint=hint) == OK
    assert active_access_token(grant["access_token"], issuer=ISSUER) is None
    assert refresh_usable(grant["refresh_token"])  # only the access token


@pytest.mark.parametrize("hint", [None, "refresh_token", "access_token"])
def test_a_refresh_token_revokes_its_family_and_the_grants_access_tokens(demo: Demo, hint: str | None) -> None:
    grant = tokens_of_demo_web()
    assert revoke(grant["refresh_token"], hint=hint) == OK
    assert not refresh_usable(grant["refresh_token"])
    assert active_access_token(grant["access_token"], issuer=ISSUER) is None
    assert revoke(grant["refresh_token"]) == OK  # again: 200


@pytest.mark.parametrize("token", ["unknown", "a.b.c", "x" * 2000])
def test_an_unknown_token_is_200(demo: Demo, token: str) -> None:
    assert revoke(token) == OK


def test_another_clients_tokens_are_refused_and_left_alone(demo: Demo) -> None:
    grant = tokens_of_demo_web()
    for kind in ("access_token", "refresh_token"):
        with pytest.raises(ApiError) as info:
            revoke(grant[kind], client_id="demo-partner")
        assert (info.value.code, info.value.status, info.value.detail) == (
            "unauthorized_client", 400, "The token was not issued to this client.")
    assert active_access_token(grant["access_token"], issuer=ISSUER) is not None
    assert refresh_usable(grant["refresh_token"])


@pytest.mark.parametrize("fields", [[("token_type_hint", "access_token")], [("token", "")]])
def test_the_token_parameter_is_required(demo: Demo, fields: list[tuple[str, str]]) -> None:
    with pytest.raises(ApiError) as info:
        post_revoke(form_request("/oauth/revoke", fields, client_id="demo-web"))
    assert (info.value.code, info.value.status, info.value.detail) == (
        "invalid_request", 400, "The token parameter is required (RFC 7009 2.1).")


def test_the_client_must_authenticate(demo: Demo) -> None:
    grant = tokens_of_demo_web()
    with pytest.raises(ApiError) as info:
        post_revoke(form_request("/oauth/revoke", [("token", grant["access_token"])]))
    assert (info.value.code, info.value.status) == ("invalid_client", 401)
    assert active_access_token(grant["access_token"], issuer=ISSUER) is not None
