"""POST /oauth/token: every condition of contract table 7.2, and the RFC 6749 §5.1 success body.

Whole responses are asserted: status, headers and body. Statuses follow RFC 6749 §5.2:
invalid_client is 401 with `WWW-Authenticate: Basic realm="oauth"`, every other error 400.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.demo import ALICE_ID, ISSUER, SPA_REDIRECT, VERIFIER, WEB_REDIRECT
from tests.functional.person_events_support import Events, by_person, trail
from tests.functional.token_support import (
    FORM,
    TokenClient,
    assert_error,
    assert_invalid_client,
    basic,
    body_of,
    claims_of,
    headers_of,
    new_code,
)


def assert_token_response(result: dict[str, Any], scope: str, refresh: bool) -> dict[str, Any]:
    headers = headers_of(result)
    assert headers.pop("x-request-id")
    body = body_of(result)
    expected_keys = {"access_token", "token_type", "expires_in", "scope"} | ({"refresh_token"} if refresh else set())
    assert (result["statusCode"], headers, set(body)) == (
        200, {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"}, expected_keys)
    assert (body["token_type"], body["expires_in"], body["scope"]) == ("Bearer", 900, scope)
    if refresh:
        assert len(body["refresh_token"]) >= 43 and "." not in body["refresh_token"]
    return body


# --------------------------------------------------------------------------- success

def test_client_credentials_success_is_rfc6749_5_1(tokens: TokenClient) -> None:
    body = assert_token_response(tokens.client_credentials(), "charges:read charges:write", refresh=False)
    claims = claims_of(body["access_token"])
    assert {k: claims[k] for k in ("iss", "sub", "aud", "client_id", "scope", "tenant")} == {
        "iss": ISSUER, "sub": "demo-service", "aud": f"{ISSUER}/charges", "client_id": "demo-service",
        "scope": "charges:read charges:write", "tenant": "demo"}
    assert claims["exp"] - claims["iat"] == 900 and "grant_id" not in claims


def test_client_credentials_narrower_scope_and_client_secret_post(tokens: TokenClient) -> None:
    result = tokens.post({"grant_type": "client_credentials", "scope": "charges:read",
                          "client_id": "demo-service", "client_secret": "demo-service-secret"})
    assert_token_response(result, "charges:read", refresh=False)


def test_basic_credentials_are_form_urlencoded_inside_basic(tokens: TokenClient) -> None:
    from authgate.stores.clients import ClientStore

    secret = "s3cr:t +/%é"
    ClientStore().create(tenant_id="demo", client_id="odd:id é", secret=secret,
                         grant_types=["client_credentials"], scopes=["charges:read"])
    assert_token_response(tokens.post({"grant_type": "client_credentials"}, auth=basic("odd:id é", secret)),
                          "charges:read", refresh=False)
    # Without the RFC 6749 2.3.1 encoding the ':' in the id splits in the wrong place.
    raw = base64.b64encode(f"odd:id é:{secret}".encode()).decode()
    assert_invalid_client(tokens.post({"grant_type": "client_credentials"}, auth=f"Basic {raw}"))


def test_authorization_code_with_pkce_confidential_client(tokens: TokenClient) -> None:
    body = assert_token_response(tokens.exchange(new_code()), "charges:read charges:write", refresh=True)
    claims = claims_of(body["access_token"])
    assert (claims["sub"], claims["username"], claims["client_id"], claims["tenant"]) == (
        ALICE_ID, "alice", "demo-web", "demo")
    assert claims["grant_id"]


def test_authorization_code_public_client_uses_none_auth(tokens: TokenClient) -> None:
    code = new_code(client_id="demo-spa", redirect_uri=SPA_REDIRECT)
    result = tokens.exchange(code, client_id="demo-spa", redirect_uri=SPA_REDIRECT)
    assert_token_response(result, "charges:read charges:write", refresh=True)


def test_refresh_rotates_and_may_narrow_scope(tokens: TokenClient) -> None:
    first = body_of(tokens.exchange(new_code()))
    second = assert_token_response(tokens.refresh(first["refresh_token"], scope="charges:read"),
                                   "charges:read", refresh=True)
    assert second["refresh_token"] != first["refresh_token"]
    # The new refresh token keeps the original scope (RFC 6749 6).
    third = assert_token_response(tokens.refresh(second["refresh_token"]), "charges:read charges:write", refresh=True)
    assert claims_of(third["access_token"])["grant_id"] == claims_of(first["access_token"])["grant_id"]


# --------------------------------------------------------------------------- invalid_request

@pytest.mark.parametrize("content_type", [None, "application/json", "text/plain", "multipart/form-data; boundary=x"])
def test_wrong_content_type_is_invalid_request(tokens: TokenClient, content_type: str | None) -> None:
    result = tokens.post(body=b"grant_type=client_credentials", content_type=content_type,
                         auth=basic("demo-service", "demo-service-secret"))
    assert_error(result, 400, "invalid_request",
                 "The request body must be application/x-www-form-urlencoded (RFC 6749 3.2).")


def test_form_content_type_with_charset_is_accepted(tokens: TokenClient) -> None:
    result = tokens.post({"grant_type": "client_credentials"}, content_type=f"{FORM}; charset=UTF-8",
                         auth=basic("demo-service", "demo-service-secret"))
    assert result["statusCode"] == 200


def test_missing_grant_type_is_invalid_request(tokens: TokenClient) -> None:
    result = tokens.post({"scope": "charges:read"}, auth=basic("demo-service", "demo-service-secret"))
    assert_error(result, 400, "invalid_request", "The grant_type parameter is required.")


def test_empty_grant_type_counts_as_missing(tokens: TokenClient) -> None:
    result = tokens.post(body=b"grant_type=", auth=basic("demo-service", "demo-service-secret"))
    assert_error(result, 400, "invalid_request", "The grant_type parameter is required.")


@pytest.mark.parametrize("body", [b"grant_type=client_credentials&grant_type=client_credentials",
                                  b"grant_type=client_credentials&scope=charges:read&scope=charges:read",
                                  b"grant_type=client_credentials&scope=&scope=charges:read"])
def test_repeated_parameter_is_invalid_request(tokens: TokenClient, body: bytes) -> None:
    name = body.split(b"&")[-1].split(b"=")[0].decode()
    result = tokens.post(body=body, auth=basic("demo-service", "demo-service-secret"))
    assert_error(result, 400, "invalid_request", f"The parameter '{name}' is repeated (RFC 6749 3.2).")


def test_two_authentication_methods_is_invalid_request(tokens: TokenClient) -> None:
    result = tokens.post({"grant_type": "client_credentials", "client_secret": "demo-service-secret"},
                         auth=basic("demo-service", "demo-service-secret"))
    assert_error(result, 400, "invalid_request",
                 "Use one client authentication method, not Basic and client_secret together.")


def test_malformed_basic_credentials_is_invalid_request(tokens: TokenClient) -> None:
    result = tokens.post({"grant_type": "client_credentials"}, auth="Basic !!!not-base64!!!")
    assert_error(result, 400, "invalid_request", "The Authorization header is not valid Basic credentials.")
    result = tokens.post({"grant_type": "client_credentials"}, auth="Basic " + base64.b64encode(b"nocolon").decode())
    assert_error(result, 400, "invalid_request", "Basic credentials must be client_id:client_secret.")


def test_parameters_in_the_query_are_invalid_request(tokens: TokenClient) -> None:
    result = tokens.post({"grant_type": "client_credentials"}, raw_query="client_secret=demo-service-secret",
                         auth=basic("demo-service", "demo-service-secret"))
    assert_error(result, 400, "invalid_request", "Parameters must be sent in the request body, not the URI query.")


def test_badly_encoded_body_is_invalid_request(tokens: TokenClient) -> None:
    result = tokens.post(body=b"grant_type=client_credentials&scope=%FF%FE",
                         auth=basic("demo-service", "demo-service-secret"))
    assert_error(result, 400, "invalid_request", "The form body is not valid application/x-www-form-urlencoded.")


def test_missing_code_is_invalid_request(tokens: TokenClient) -> None:
    result = tokens.post({"grant_type": "authorization_code", "redirect_uri": WEB_REDIRECT},
                         auth=basic("demo-web", "demo-web-secret"))
    assert_error(result, 400, "invalid_request", "The code parameter is required.")


def test_malformed_code_verifier_is_invalid_request(tokens: TokenClient) -> None:
    result = tokens.exchange(new_code(), verifier="short")
    assert_error(result, 400, "invalid_request", "code_verifier must be 43-128 unreserved characters (RFC 7636 4.1).")


# --------------------------------------------------------------------------- invalid_client (401 + Basic)

def test_unknown_client_is_invalid_client(tokens: TokenClient) -> None:
    assert_invalid_client(tokens.post({"grant_type": "client_credentials"}, auth=basic("nobody", "x")))


def test_wrong_secret_is_invalid_client(tokens: TokenClient) -> None:
    assert_invalid_client(tokens.post({"grant_type": "client_credentials"}, auth=basic("demo-service", "wrong")))
    assert_invalid_client(tokens.post({"grant_type": "client_credentials", "client_id": "demo-service",
                                       "client_secret": "wrong"}))


def test_client_of_another_environment_is_invalid_client(tokens: TokenClient) -> None:
    assert_invalid_client(tokens.client_credentials("staging-web"))


def test_rotated_out_secret_is_invalid_client_at_once(tokens: TokenClient) -> None:
    from authgate.stores.clients import ClientStore

    new_secret = ClientStore().rotate_secret("demo-service")
    assert_invalid_client(tokens.client_credentials("demo-service"))
    ok = tokens.post({"grant_type": "client_credentials"}, auth=basic("demo-service", new_secret))
    assert ok["statusCode"] == 200


def test_no_client_authentication_is_invalid_client(tokens: TokenClient) -> None:
    assert_invalid_client(tokens.post({"grant_type": "client_credentials"}),
                          "Client authentication is required.")


def test_confidential_client_without_secret_is_invalid_client(tokens: TokenClient) -> None:
    assert_invalid_client(tokens.post({"grant_type": "client_credentials", "client_id": "demo-service"}))


def test_public_client_presenting_a_secret_is_invalid_client(tokens: TokenClient) -> None:
    code = new_code(client_id="demo-spa", redirect_uri=SPA_REDIRECT)
    result = tokens.post({"grant_type": "authorization_code", "code": code, "redirect_uri": SPA_REDIRECT,
                          "code_verifier": VERIFIER}, auth=basic("demo-spa", "anything"))
    assert_invalid_client(result)


def test_other_authorization_scheme_is_invalid_client(tokens: TokenClient) -> None:
    assert_invalid_client(tokens.post({"grant_type": "client_credentials"}, auth="Bearer abc.def.ghi"),
                          "Use client_secret_basic, client_secret_post, or none for public clients.")


def test_repeated_failed_authentication_is_rate_limited(tokens: TokenClient) -> None:
    from authgate.settings import get_settings

    quota = get_settings().limits.auth_failure_client
    for _ in range(quota):
        assert tokens.post({"grant_type": "client_credentials"}, auth=basic("demo-service", "wrong"),
                           source_ip="203.0.113.9")["statusCode"] == 401
    result = tokens.client_credentials("demo-service", source_ip="203.0.113.9")
    assert result["statusCode"] == 429
    assert body_of(result)["error"] == "temporarily_unavailable"
    assert int(headers_of(result)["Retry-After"]) >= 1


# --------------------------------------------------------------------------- unauthorized_client

def test_grant_not_allowed_for_client_is_unauthorized_client(tokens: TokenClient) -> None:
    assert_error(tokens.post({"grant_type": "client_credentials"}, auth=basic("demo-web", "demo-web-secret")),
                 400, "unauthorized_client", "This client may not use the client_credentials grant.")
    result = tokens.exchange(new_code(client_id="demo-service"), client_id="demo-service")
    assert_error(result, 400, "unauthorized_client", "This client may not use the authorization_code grant.")


# --------------------------------------------------------------------------- unsupported_grant_type

@pytest.mark.parametrize("grant_type", ["password", "urn:ietf:params:oauth:grant-type:saml2-bearer", "implicit", "x"])
def test_unsupported_grant_types(tokens: TokenClient, grant_type: str) -> None:
    result = tokens.post({"grant_type": grant_type, "username": "alice", "password": "alice-password"},
                         auth=basic("demo-web", "demo-web-secret"))
    assert_error(result, 400, "unsupported_grant_type", "The grant type is not supported by this server.")


@pytest.mark.slow
def test_password_grant_when_enabled(tokens: TokenClient, monkeypatch: pytest.MonkeyPatch,
                                    audit_events: Events) -> None:
    from authgate import caches
    from authgate.stores.clients import ClientStore

    monkeypatch.setenv("AUTHGATE_PASSWORD_GRANT", "true")
    caches.reset()
    _, secret = ClientStore().create(tenant_id="demo", client_id="pw-client", grant_types=["password"],
                                     scopes=["charges:read"])
    auth = basic("pw-client", secret or "")
    ok = tokens.post({"grant_type": "password", "username": "alice", "password": "alice-password"}, auth=auth)
    assert_token_response(ok, "charges:read", refresh=False)
    bad = tokens.post({"grant_type": "password", "username": "alice", "password": "nope"}, auth=auth)
    assert_error(bad, 400, "invalid_grant", "The resource owner credentials are invalid.")
    not_allowed = tokens.post({"grant_type": "password", "username": "alice", "password": "alice-password"},
                              auth=basic("demo-web", "demo-web-secret"))
    assert_error(not_allowed, 400, "unauthorized_client", "This client may not use the password grant.")
    # The sign-in it is, and the refused one, recorded as the sign-in form's are (authgate.audit.person).
    signed, issued, refused = trail(audit_events)
    assert signed == by_person("signin.succeeded", ALICE_ID, "alice", method="password", acr="password", amr=["pwd"],
                               client_id="pw-client")
    assert (issued["action"], issued["details"]["grant_type"]) == ("token.issued", "password")
    assert refused == by_person("signin.failed", ALICE_ID, "alice", "failure", "invalid", method="password",
                                client_id="pw-client")


# --------------------------------------------------------------------------- invalid_scope

def test_unknown_scope_is_invalid_scope(tokens: TokenClient) -> None:
    assert_error(tokens.client_credentials(scope="charges:read admin"), 400, "invalid_scope",
                 "The scope 'admin' is unknown.")


def test_scope_not_allowed_for_client_is_invalid_scope(tokens: TokenClient) -> None:
    assert_error(tokens.client_credentials("demo-reader", scope="charges:write"), 400, "invalid_scope",
                 "The scope 'charges:write' is not allowed for this client.")


def test_scope_forbidden_by_tenant_is_invalid_scope(tokens: TokenClient) -> None:
    from authgate.stores.clients import ClientStore

    _, secret = ClientStore().create(tenant_id="demo", client_id="refunder", grant_types=["client_credentials"],
                                     scopes=["charges:read", "charges:refund"])
    result = tokens.post({"grant_type": "client_credentials", "scope": "charges:refund"},
                         auth=basic("refunder", secret or ""))
    assert_error(result, 400, "invalid_scope", "The scope 'charges:refund' is forbidden by the tenant.")
    # Without a scope parameter the default leaves the forbidden scope out.
    default = tokens.post({"grant_type": "client_credentials"}, auth=basic("refunder", secret or ""))
    assert_token_response(default, "charges:read", refresh=False)


@pytest.mark.parametrize("scope", ["charges:read  charges:write", " charges:read", 'charges:"read"'])
def test_malformed_scope_is_invalid_scope(tokens: TokenClient, scope: str) -> None:
    assert_error(tokens.client_credentials(scope=scope), 400, "invalid_scope",
                 "The scope parameter is not a list of scope tokens (RFC 6749 3.3).")


def test_refresh_cannot_widen_scope(tokens: TokenClient) -> None:
    first = body_of(tokens.exchange(new_code(scope="charges:read")))
    assert_error(tokens.refresh(first["refresh_token"], scope="charges:read charges:write"), 400, "invalid_scope",
                 "The scope 'charges:write' exceeds the original grant (RFC 6749 6).")
    # A refused request does not rotate: the token still works.
    assert tokens.refresh(first["refresh_token"])["statusCode"] == 200


# --------------------------------------------------------------------------- invalid_grant: codes

def introspect_active(tokens: TokenClient, token: str, client_id: str = "demo-web") -> bool:
    return body_of(tokens.introspect(token, client_id=client_id))["active"]


def test_second_exchange_is_invalid_grant_and_revokes_every_token_of_the_code(tokens: TokenClient) -> None:
    code = new_code()
    first = body_of(tokens.exchange(code))
    assert introspect_active(tokens, first["access_token"])
    assert_error(tokens.exchange(code), 400, "invalid_grant", "The authorization code has already been used.")
    assert not introspect_active(tokens, first["access_token"])
    assert not introspect_active(tokens, first["refresh_token"])
    assert_error(tokens.refresh(first["refresh_token"]), 400, "invalid_grant", "The refresh token has been revoked.")


def test_expired_code_is_invalid_grant(tokens: TokenClient) -> None:
    assert_error(tokens.exchange(new_code(ttl=0)), 400, "invalid_grant", "The authorization code is invalid or expired.")


def test_unknown_code_is_invalid_grant(tokens: TokenClient) -> None:
    assert_error(tokens.exchange("not-a-code"), 400, "invalid_grant", "The authorization code is invalid or expired.")


def test_code_of_another_client_is_invalid_grant(tokens: TokenClient) -> None:
    code = new_code(client_id="demo-partner", redirect_uri="http://127.0.0.1:8765/partner/callback")
    assert_error(tokens.exchange(code), 400, "invalid_grant", "The authorization code was issued to another client.")


@pytest.mark.parametrize("redirect_uri", [WEB_REDIRECT + "/", "https://127.0.0.1:8765/callback",
                                          "http://127.0.0.1:8765/Callback", SPA_REDIRECT])
def test_redirect_uri_differing_by_any_character_is_invalid_grant(tokens: TokenClient, redirect_uri: str) -> None:
    assert_error(tokens.exchange(new_code(), redirect_uri=redirect_uri), 400, "invalid_grant",
                 "redirect_uri does not match the authorization request.")


def test_code_requested_without_redirect_uri_may_be_exchanged_without_it(tokens: TokenClient) -> None:
    """RFC 6749 4.1.3: redirect_uri is REQUIRED only if the authorization request included it."""
    code = new_code(redirect_uri=WEB_REDIRECT, redirect_uri_sent=False)
    result = tokens.post({"grant_type": "authorization_code", "code": code, "code_verifier": VERIFIER},
                         auth=basic("demo-web", "demo-web-secret"))
    assert_token_response(result, "charges:read charges:write", refresh=True)


def test_code_requested_without_redirect_uri_may_name_the_uri_it_was_sent_to(tokens: TokenClient) -> None:
    code = new_code(redirect_uri=WEB_REDIRECT, redirect_uri_sent=False)
    assert_token_response(tokens.exchange(code, redirect_uri=WEB_REDIRECT), "charges:read charges:write", refresh=True)


@pytest.mark.parametrize("redirect_uri", [WEB_REDIRECT + "/", SPA_REDIRECT, "https://elsewhere.example/cb"])
def test_code_requested_without_redirect_uri_refuses_any_other_uri(tokens: TokenClient, redirect_uri: str) -> None:
    """Not even one the client registered: only the URI the code went to (stricter than Authlib)."""
    code = new_code(redirect_uri=WEB_REDIRECT, redirect_uri_sent=False)
    assert_error(tokens.exchange(code, redirect_uri=redirect_uri), 400, "invalid_grant",
                 "redirect_uri is not the URI the authorization code was sent to.")


def test_missing_redirect_uri_when_the_request_had_one_is_invalid_grant(tokens: TokenClient) -> None:
    result = tokens.post({"grant_type": "authorization_code", "code": new_code(), "code_verifier": VERIFIER},
                         auth=basic("demo-web", "demo-web-secret"))
    assert_error(result, 400, "invalid_grant", "redirect_uri does not match the authorization request.")


def test_wrong_pkce_verifier_is_invalid_grant(tokens: TokenClient) -> None:
    assert_error(tokens.exchange(new_code(), verifier="x" * 43), 400, "invalid_grant",
                 "code_verifier does not match the code challenge (RFC 7636 4.6).")


def test_missing_pkce_verifier_is_invalid_grant(tokens: TokenClient) -> None:
    assert_error(tokens.exchange(new_code(), verifier=None), 400, "invalid_grant",
                 "code_verifier is required: the authorization request used PKCE.")


def test_verifier_for_a_code_without_challenge_is_invalid_grant(tokens: TokenClient) -> None:
    assert_error(tokens.exchange(new_code(challenge="")), 400, "invalid_grant",
                 "code_verifier sent, but the authorization request had no code_challenge.")


def test_confidential_client_without_pkce_is_accepted(tokens: TokenClient) -> None:
    assert tokens.exchange(new_code(challenge=""), verifier=None)["statusCode"] == 200


# --------------------------------------------------------------------------- invalid_grant: refresh tokens

def test_reused_refresh_token_is_invalid_grant_and_revokes_the_family(tokens: TokenClient) -> None:
    first = body_of(tokens.exchange(new_code()))
    second = body_of(tokens.refresh(first["refresh_token"]))
    assert_error(tokens.refresh(first["refresh_token"]), 400, "invalid_grant",
                 "The refresh token has already been used; its grant is revoked.")
    assert_error(tokens.refresh(second["refresh_token"]), 400, "invalid_grant", "The refresh token has been revoked.")
    assert not introspect_active(tokens, second["access_token"])
    assert not introspect_active(tokens, first["access_token"])


def test_expired_refresh_token_is_invalid_grant(tokens: TokenClient, clock: ManualClock) -> None:
    first = body_of(tokens.exchange(new_code()))
    clock.advance(30 * 24 * 3600 + 1)
    assert_error(tokens.refresh(first["refresh_token"]), 400, "invalid_grant", "The refresh token has expired.")


def test_refresh_token_of_another_client_is_invalid_grant(tokens: TokenClient) -> None:
    spa = body_of(tokens.exchange(new_code(client_id="demo-spa", redirect_uri=SPA_REDIRECT),
                                  client_id="demo-spa", redirect_uri=SPA_REDIRECT))
    assert_error(tokens.refresh(spa["refresh_token"]), 400, "invalid_grant",
                 "The refresh token was issued to another client.")


def test_unknown_refresh_token_is_invalid_grant(tokens: TokenClient) -> None:
    assert_error(tokens.refresh("nope"), 400, "invalid_grant", "The refresh token is invalid.")


def test_missing_refresh_token_is_invalid_request(tokens: TokenClient) -> None:
    result = tokens.post({"grant_type": "refresh_token"}, auth=basic("demo-web", "demo-web-secret"))
    assert_error(result, 400, "invalid_request", "The refresh_token parameter is required.")


# --------------------------------------------------------------------------- method, storage outage

def test_get_on_token_endpoint_is_405_problem_with_allow(tokens: TokenClient) -> None:
    result = tokens.post(method="GET", content_type=None)
    assert result["statusCode"] == 405
    assert headers_of(result)["Allow"] == "OPTIONS, POST"  # OPTIONS: the CORS preflight


def test_dynamodb_throttling_is_503_temporarily_unavailable(tokens: TokenClient) -> None:
    from botocore.stub import Stubber

    from authgate.aws import dynamodb

    with Stubber(dynamodb()) as stub:
        stub.add_client_error("batch_get_item", "ThrottlingException", http_status_code=400)
        result = tokens.client_credentials()
    assert_error(result, 503, "temporarily_unavailable",
                 "The service is temporarily unavailable; retry after Retry-After seconds.", {"Retry-After": "1"},
                 code="service_unavailable")
