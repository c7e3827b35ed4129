"""POST /oauth/revoke (RFC 7009) and POST /oauth/introspect (RFC 7662): whole responses."""

from __future__ import annotations

from typing import Any

import pytest

from tests.demo import ALICE_ID, ISSUER, SPA_REDIRECT
from tests.functional.token_support import (
    TokenClient,
    assert_error,
    assert_invalid_client,
    assert_ok,
    basic,
    body_of,
    headers_of,
    new_code,
)


def issued(tokens: TokenClient) -> dict[str, Any]:
    return body_of(tokens.exchange(new_code()))


# --------------------------------------------------------------------------- introspection

def test_introspect_active_access_token(tokens: TokenClient) -> None:
    grant = issued(tokens)
    result = tokens.introspect(grant["access_token"])
    body = body_of(result)
    assert set(body) == {"active", "scope", "client_id", "sub", "username", "exp", "iat", "iss", "aud", "token_type",
                         "jti"}
    assert {k: body[k] for k in ("active", "scope", "client_id", "sub", "username", "iss", "aud", "token_type")} == {
        "active": True, "scope": "charges:read charges:write", "client_id": "demo-web", "sub": ALICE_ID,
        "username": "alice",
        "iss": ISSUER, "aud": f"{ISSUER}/charges", "token_type": "Bearer"}
    assert body["exp"] - body["iat"] == 900
    assert headers_of(result)["Cache-Control"] == "no-store"


def test_introspect_active_refresh_token(tokens: TokenClient) -> None:
    grant = issued(tokens)
    body = body_of(tokens.introspect(grant["refresh_token"], hint="refresh_token"))
    assert {k: body[k] for k in ("active", "scope", "client_id", "sub", "username", "iss", "token_type")} == {
        "active": True, "scope": "charges:read charges:write", "client_id": "demo-web", "sub": ALICE_ID,
        "username": "alice",
        "iss": ISSUER, "token_type": "refresh_token"}


@pytest.mark.parametrize("token", ["garbage", "a.b.c", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", "x" * 5000])
def test_introspect_anything_invalid_is_just_inactive(tokens: TokenClient, token: str) -> None:
    assert_ok(tokens.introspect(token), {"active": False})


def test_introspect_token_of_another_client_is_inactive(tokens: TokenClient) -> None:
    grant = issued(tokens)
    assert_ok(tokens.introspect(grant["access_token"], client_id="demo-service"), {"active": False})
    assert_ok(tokens.introspect(grant["refresh_token"], client_id="demo-service"), {"active": False})


def test_introspect_rotated_refresh_token_is_inactive(tokens: TokenClient) -> None:
    grant = issued(tokens)
    tokens.refresh(grant["refresh_token"])
    assert_ok(tokens.introspect(grant["refresh_token"]), {"active": False})


def test_introspect_requires_client_authentication(tokens: TokenClient) -> None:
    grant = issued(tokens)
    assert_invalid_client(tokens.post({"token": grant["access_token"]}, path="/oauth/introspect"),
                          "Client authentication is required.")
    assert_invalid_client(tokens.post({"token": grant["access_token"]}, path="/oauth/introspect",
                                      auth=basic("demo-web", "wrong")))


def test_introspect_without_token_is_invalid_request(tokens: TokenClient) -> None:
    result = tokens.post({}, path="/oauth/introspect", auth=basic("demo-web", "demo-web-secret"))
    assert_error(result, 400, "invalid_request", "The token parameter is required (RFC 7662 2.1).")


# --------------------------------------------------------------------------- revocation

def test_revoke_access_token(tokens: TokenClient) -> None:
    grant = issued(tokens)
    assert_ok(tokens.revoke(grant["access_token"], hint="access_token"), {})
    assert_ok(tokens.introspect(grant["access_token"]), {"active": False})
    # The refresh token of the same grant is untouched (RFC 7009 2.1: MAY, not MUST).
    assert tokens.refresh(grant["refresh_token"])["statusCode"] == 200


def test_revoke_refresh_token_revokes_family_and_its_access_tokens(tokens: TokenClient) -> None:
    grant = issued(tokens)
    assert_ok(tokens.revoke(grant["refresh_token"], hint="refresh_token"), {})
    assert_ok(tokens.introspect(grant["access_token"]), {"active": False})
    assert_error(tokens.refresh(grant["refresh_token"]), 400, "invalid_grant", "The refresh token has been revoked.")


def test_revoke_with_wrong_hint_still_revokes(tokens: TokenClient) -> None:
    grant = issued(tokens)
    assert_ok(tokens.revoke(grant["refresh_token"], hint="access_token"), {})
    assert_ok(tokens.introspect(grant["refresh_token"]), {"active": False})
    assert_ok(tokens.revoke(grant["access_token"], hint="unknown_type"), {})
    assert_ok(tokens.introspect(grant["access_token"]), {"active": False})


def test_revoke_a_rotated_refresh_token_kills_the_current_one(tokens: TokenClient) -> None:
    grant = issued(tokens)
    current = body_of(tokens.refresh(grant["refresh_token"]))
    assert_ok(tokens.revoke(grant["refresh_token"]), {})
    assert_error(tokens.refresh(current["refresh_token"]), 400, "invalid_grant", "The refresh token has been revoked.")


@pytest.mark.parametrize("token", ["unknown", "a.b.c", "x" * 300])
def test_revoke_unknown_token_is_200(tokens: TokenClient, token: str) -> None:
    assert_ok(tokens.revoke(token), {})


def test_revoke_twice_is_200(tokens: TokenClient) -> None:
    grant = issued(tokens)
    assert_ok(tokens.revoke(grant["refresh_token"]), {})
    assert_ok(tokens.revoke(grant["refresh_token"]), {})


def test_revoke_token_of_another_client_is_refused(tokens: TokenClient) -> None:
    grant = issued(tokens)
    assert_error(tokens.revoke(grant["access_token"], client_id="demo-service"), 400, "unauthorized_client",
                 "The token was not issued to this client.")
    assert_error(tokens.revoke(grant["refresh_token"], client_id="demo-service"), 400, "unauthorized_client",
                 "The token was not issued to this client.")
    assert body_of(tokens.introspect(grant["access_token"]))["active"] is True


def test_public_client_revokes_its_own_token_with_none_auth(tokens: TokenClient) -> None:
    spa = body_of(tokens.exchange(new_code(client_id="demo-spa", redirect_uri=SPA_REDIRECT),
                                  client_id="demo-spa", redirect_uri=SPA_REDIRECT))
    assert_ok(tokens.revoke(spa["refresh_token"], client_id="demo-spa"), {})
    assert_error(tokens.refresh(spa["refresh_token"], client_id="demo-spa"), 400, "invalid_grant",
                 "The refresh token has been revoked.")


def test_revoke_requires_client_authentication(tokens: TokenClient) -> None:
    assert_invalid_client(tokens.post({"token": "x"}, path="/oauth/revoke"), "Client authentication is required.")


def test_revoke_without_token_is_invalid_request(tokens: TokenClient) -> None:
    result = tokens.post({}, path="/oauth/revoke", auth=basic("demo-web", "demo-web-secret"))
    assert_error(result, 400, "invalid_request", "The token parameter is required (RFC 7009 2.1).")


def test_revoke_wrong_content_type_is_invalid_request(tokens: TokenClient) -> None:
    result = tokens.post(body=b'{"token":"x"}', path="/oauth/revoke", content_type="application/json",
                         auth=basic("demo-web", "demo-web-secret"))
    assert_error(result, 400, "invalid_request",
                 "The request body must be application/x-www-form-urlencoded (RFC 6749 3.2).")


def test_revoked_access_token_is_refused_by_the_api(tokens: TokenClient, invoke: Any) -> None:
    from authgate_cli.local.events import HttpRequest, build_event

    grant = issued(tokens)
    tokens.revoke(grant["access_token"])
    request = HttpRequest("GET", "/charges", "", [("Host", "127.0.0.1:3000"),
                                                   ("Authorization", f"Bearer {grant['access_token']}")])
    result = invoke("charges", build_event(request, resource="/charges", path_params=None, api_key="demo-api-key"))
    assert result["statusCode"] == 401
    assert 'error="invalid_token"' in headers_of(result)["WWW-Authenticate"]


@pytest.mark.parametrize("endpoint", ["revoke", "introspect"])
def test_storage_throttled_while_checking_the_token_is_503_not_a_silent_success(tokens: TokenClient,
                                                                                endpoint: str) -> None:
    from botocore.exceptions import ClientError

    from authgate.aws import dynamodb

    grant = issued(tokens)
    seen = {"batch_gets": 0}

    def throttle_after_client_auth(**_: Any) -> None:
        seen["batch_gets"] += 1
        if seen["batch_gets"] > 1:  # the first BatchGetItem is client authentication
            raise ClientError({"Error": {"Code": "ThrottlingException", "Message": "slow down"}}, "BatchGetItem")

    client = dynamodb()
    client.meta.events.register("before-call.dynamodb.BatchGetItem", throttle_after_client_auth)
    try:
        result = getattr(tokens, endpoint)(grant["access_token"])
    finally:
        client.meta.events.unregister("before-call.dynamodb.BatchGetItem", throttle_after_client_auth)
    assert_error(result, 503, "temporarily_unavailable",
                 "The service is temporarily unavailable; retry after Retry-After seconds.", {"Retry-After": "1"},
                 code="service_unavailable")
    assert body_of(tokens.introspect(grant["access_token"]))["active"] is True
