"""oauth.token.introspection.post_introspect (RFC 7662): a client's own valid tokens described, anything else inactive."""

from __future__ import annotations

import json
from typing import Any

import pytest

from authgate.clock import ManualClock
from authgate.errors import ApiError
from authgate.oauth.token.introspection import post_introspect
from tests.demo import ALICE_ID, AUDIENCE, ISSUER, Demo
from tests.unit.oauth.token.form_requests import form_request, revoke, tokens_of_demo_web

HEADERS = {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"}
INACTIVE = (200, HEADERS, {"active": False})


def introspect(token: str, client_id: str = "demo-web", hint: str | None = None) -> tuple[int, dict[str, str], Any]:
    fields = [("token", token)] + ([("token_type_hint", hint)] if hint else [])
    response = post_introspect(form_request("/oauth/introspect", fields, client_id=client_id))
    return response.status, response.headers, json.loads(response.body)


@pytest.mark.parametrize("hint", [None, "access_token", "refresh_token"])
def test_an_active_access_token(demo: Demo, clock: ManualClock, hint: str | None) -> None:
    grant = tokens_of_demo_web()
    status, headers, body = introspect(grant["access_token"], hint=hint)
    now = int(clock())
    assert (status, headers) == (200, HEADERS)
    # RFC 7662 2.2: sub, the person's user_id; username, for display.
    assert body == {"active": True, "scope": "charges:read charges:write", "client_id": "demo-web", "sub": ALICE_ID,
                    "username": "alice", "exp": now + 900, "iat": now, "iss": ISSUER, "aud": AUDIENCE, "token_type": "Bearer",
                    "jti": body["jti"]}
    assert isinstance(body["jti"], str) and body["jti"]


@pytest.mark.parametrize("hint", [None, "refresh_token", "access_token"])
def test_an_active_refresh_token(demo: Demo, clock: ManualClock, hint: str | None) -> None:
    grant = tokens_of_demo_web()
    status, headers, body = introspect(grant["refresh_token"], hint=hint)
    assert (status, headers) == (200, HEADERS)
    assert {k: v for k, v in body.items() if k != "exp"} == {
        "active": True, "scope": "charges:read charges:write", "client_id": "demo-web", "sub": ALICE_ID,
        "username": "alice", "iat": int(clock()), "iss": ISSUER, "token_type": "refresh_token"}
    assert body["exp"] > int(clock())


def test_a_refresh_family_of_before_sign_ins_were_recorded_names_its_users_user_id(demo: Demo,
                                                                                  clock: ManualClock) -> None:
    """A family started when it recorded only the username: its person is the user of that username now, whose
    user_id its next refresh puts in the access token; gone, the family is inactive."""
    from authgate.stores.refresh_tokens import RefreshTokenStore
    from authgate.stores.users import UserStore

    token = RefreshTokenStore().start_family(family_id="g-before", client_id="demo-web", tenant_id="demo",
                                             subject="alice", scope="charges:read", now=int(clock()), ttl=3600)
    status, _, body = introspect(token)
    assert (status, body["sub"], body["username"]) == (200, ALICE_ID, "alice")
    UserStore().delete("demo", "alice")
    assert introspect(token) == INACTIVE


@pytest.mark.parametrize("token", ["garbage", "a.b.c", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", "x" * 5000])
def test_anything_invalid_is_only_inactive(demo: Demo, token: str) -> None:
    assert introspect(token) == INACTIVE


def test_another_clients_tokens_are_inactive(demo: Demo) -> None:
    grant = tokens_of_demo_web()
    assert introspect(grant["access_token"], client_id="demo-partner") == INACTIVE
    assert introspect(grant["refresh_token"], client_id="demo-partner") == INACTIVE


def test_revoked_and_expired_tokens_are_inactive(demo: Demo, clock: ManualClock) -> None:
    first, second = tokens_of_demo_web(), tokens_of_demo_web()
    revoke(first["refresh_token"])
    assert introspect(first["access_token"]) == INACTIVE
    assert introspect(first["refresh_token"]) == INACTIVE
    clock.advance(900 + 121)  # past exp and the leeway
    assert introspect(second["access_token"]) == INACTIVE
    assert introspect(second["refresh_token"])[2]["active"] is True  # refresh tokens live longer


@pytest.mark.parametrize("fields", [[], [("token", "")]])
def test_the_token_parameter_is_required_and_the_client_must_authenticate(demo: Demo,
                                                                          fields: list[tuple[str, str]]) -> None:
    with pytest.raises(ApiError) as info:
        post_introspect(form_request("/oauth/introspect", fields, client_id="demo-web"))
    assert (info.value.code, info.value.status, info.value.detail) == (
        "invalid_request", 400, "The token parameter is required (RFC 7662 2.1).")
    with pytest.raises(ApiError) as unauthenticated:
        post_introspect(form_request("/oauth/introspect", [("token", "x")]))
    assert (unauthenticated.value.code, unauthenticated.value.status) == ("invalid_client", 401)
