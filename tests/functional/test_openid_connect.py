"""OpenID Connect through the functions: the ID token of the code exchange and of a refresh (OIDC Core 3.1.3,
12.2), the authorization endpoint's OpenID parameters and errors (3.1.2), and UserInfo (5.3)."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import jwt
import pytest

from authgate.clock import ManualClock
from tests.demo import ISSUER, SPA_REDIRECT, WEB_REDIRECT
from tests.functional.authorize_support import Browser, headers_of, page_of, redirect_of, web_params
from tests.functional.openid_support import ALICE, SIGNED_IN_AT, openid_code
from tests.functional.token_support import OK_HEADERS, TokenClient, body_of, claims_of

OIDC_SCOPE = "openid profile email charges:read"


def verified(id_token: str, client_id: str = "demo-web") -> tuple[dict[str, Any], dict[str, Any]]:
    """(header, claims) of an ID token whose signature the published JWK Set verifies (PyJWT, not our code)."""
    from authgate.tokens.jwk_set import jwk_set

    header = jwt.get_unverified_header(id_token)
    (key,) = [k for k in jwk_set()["keys"] if k["kid"] == header["kid"]]
    claims = jwt.decode(id_token, jwt.PyJWK(key).key, algorithms=["RS256"], audience=client_id, issuer=ISSUER,
                        options={"verify_exp": False, "verify_iat": False})
    return header, claims


def at_hash(access_token: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(access_token.encode()).digest()[:16]).rstrip(b"=").decode()


def userinfo(tokens: TokenClient, token: str | None, *, method: str = "GET", in_body: bool = False,
             scheme: str = "Bearer") -> dict[str, Any]:
    headers = [] if token is None or in_body else [("Authorization", f"{scheme} {token}")]
    fields = [("access_token", token)] if in_body and token else []
    return tokens.post(fields, path="/oauth/userinfo", method=method, headers=headers,
                       content_type="application/x-www-form-urlencoded" if method == "POST" else None)


# ------------------------------------------------------------------ the ID token


def test_code_exchange_with_openid_returns_a_signed_id_token(clock: ManualClock, tokens: TokenClient) -> None:
    result = tokens.exchange(openid_code())
    body = body_of(result)
    assert result["statusCode"] == 200 and {k: v for k, v in headers_of(result).items()
                                            if k != "x-request-id"} == OK_HEADERS
    assert sorted(body) == ["access_token", "expires_in", "id_token", "refresh_token", "scope", "token_type"]
    assert (body["token_type"], body["expires_in"], body["scope"]) == ("Bearer", 900, OIDC_SCOPE)
    header, claims = verified(body["id_token"])
    assert header == {"typ": "JWT", "alg": "RS256", "kid": header["kid"]}
    now = int(clock())
    assert claims == {"iss": ISSUER, "sub": ALICE, "aud": "demo-web", "exp": now + 900, "iat": now,
                      "auth_time": SIGNED_IN_AT, "acr": "password", "amr": ["pwd"], "azp": "demo-web",
                      "at_hash": at_hash(body["access_token"]), "nonce": "n-0S6_WzA2Mj"}


def test_no_nonce_in_the_request_means_none_in_the_id_token(clock: ManualClock, tokens: TokenClient) -> None:
    body = body_of(tokens.exchange(openid_code(nonce=None)))
    assert "nonce" not in verified(body["id_token"])[1]


def test_without_openid_there_is_no_id_token(clock: ManualClock, tokens: TokenClient) -> None:
    body = body_of(tokens.exchange(openid_code(scope="charges:read")))
    assert sorted(body) == ["access_token", "expires_in", "refresh_token", "scope", "token_type"]


def test_refresh_of_an_openid_grant_brings_a_new_id_token(clock: ManualClock, tokens: TokenClient) -> None:
    first = body_of(tokens.exchange(openid_code()))
    clock.advance(600)
    result = tokens.refresh(first["refresh_token"])
    body = body_of(result)
    assert result["statusCode"] == 200 and sorted(body) == [
        "access_token", "expires_in", "id_token", "refresh_token", "scope", "token_type"]
    _, claims = verified(body["id_token"])
    now = int(clock())
    # OIDC Core 12.2: the same iss, sub, aud, azp and auth_time; a new iat; no nonce.
    assert claims == {"iss": ISSUER, "sub": ALICE, "aud": "demo-web", "exp": now + 900, "iat": now,
                      "auth_time": SIGNED_IN_AT, "acr": "password", "amr": ["pwd"], "azp": "demo-web",
                      "at_hash": at_hash(body["access_token"])}
    # And again after the rotation: the sign-in travels with the family.
    again = body_of(tokens.refresh(body["refresh_token"]))
    assert verified(again["id_token"])[1]["auth_time"] == SIGNED_IN_AT


def test_a_refresh_narrowed_without_openid_has_no_id_token(clock: ManualClock, tokens: TokenClient) -> None:
    first = body_of(tokens.exchange(openid_code()))
    body = body_of(tokens.refresh(first["refresh_token"], scope="charges:read"))
    assert sorted(body) == ["access_token", "expires_in", "refresh_token", "scope", "token_type"]


def test_client_credentials_may_not_ask_for_openid(tokens: TokenClient) -> None:
    result = tokens.client_credentials(scope="openid charges:read")
    assert (result["statusCode"], body_of(result)["error"]) == (400, "invalid_scope")


# ------------------------------------------------------------------ the authorization request


def assert_redirected_error(result: dict[str, Any], error: str, description: str,
                            base: str = WEB_REDIRECT) -> None:
    redirect = redirect_of(result)
    assert result["statusCode"] == 302 and result["body"] == ""
    assert (redirect.base, redirect.params) == (base, {"error": [error], "error_description": [description],
                                                       "state": ["xyz-state"], "iss": [ISSUER]})


def test_openid_request_shows_the_page_with_the_identity_scopes_and_the_login_hint(browser: Browser) -> None:
    page = page_of(browser.get(web_params(scope="openid profile email charges:read", nonce="n1",
                                          login_hint="alice", prompt="login consent", max_age="0",
                                          ui_locales="fr-CA", claims='{"id_token": {"acr": {"essential": true}}}')))
    assert page.status == 200
    text = page.text()
    for line in ("Sign you in with your account openid", "See your name and username profile",
                 "See your email address email", "See your charges charges:read"):
        assert line in text
    assert [i.get("value") for i in page.inputs if i.get("name") == "username"] == ["alice"]


@pytest.mark.parametrize(("params", "error", "description"), [
    ({"prompt": "none"}, "login_required", "The user is not signed in, and prompt=none forbids asking them to."),
    ({"prompt": "none login"}, "invalid_request",
     "prompt=none cannot be combined with another prompt value (OpenID Connect Core 3.1.2.1)."),
    ({"prompt": "select_account"}, "invalid_request",
     "The prompt value 'select_account' is not supported; use none, login, consent."),
    ({"max_age": "-1"}, "invalid_request", "max_age must be a non-negative integer number of seconds."),
    ({"max_age": "ten"}, "invalid_request", "max_age must be a non-negative integer number of seconds."),
    ({"claims": "[1]"}, "invalid_request", ("The claims parameter must be a JSON object whose userinfo and "
                                            "id_token members are objects (OpenID Connect Core 5.5).")),
    ({"claims": '{"id_token": {"acr": {"essential": true, "values": ["urn:example:loa4"]}}}'},
     "unmet_authentication_requirements",
     "None of the essential acr values can be met here; this server performs password, mfa."),
    ({"request": "eyJhbGciOiJub25lIn0.e30."}, "request_not_supported",
     ("Request objects (the request parameter) are not supported: send the parameters themselves, or push them "
      "to the PAR endpoint.")),
    ({"registration": "{}"}, "registration_not_supported",
     "The registration parameter is not supported: register the client before it sends authorization requests."),
])
def test_openid_parameter_errors_are_redirected(browser: Browser, params: dict[str, str], error: str,
                                                description: str) -> None:
    assert_redirected_error(browser.get(web_params(scope="openid charges:read", **params)), error, description)


def test_openid_parameters_mean_nothing_without_openid(browser: Browser) -> None:
    assert page_of(browser.get(web_params(prompt="none login", nonce="x" * 600))).status == 200


def test_max_age_is_read_without_openid_too(browser: Browser) -> None:
    """RFC 9470 4: a plain OAuth request may send max_age and acr_values (the step-up of a resource's challenge)."""
    assert_redirected_error(browser.get(web_params(max_age="x")), "invalid_request",
                            "max_age must be a non-negative integer number of seconds.")


def test_a_public_client_must_send_a_nonce_with_openid(browser: Browser) -> None:
    params = web_params(client_id="demo-spa", redirect_uri=SPA_REDIRECT, scope="openid charges:read")
    assert_redirected_error(browser.get(params), "invalid_request",
                            "A public client must send a nonce with scope openid: it binds the ID token to this "
                            "sign-in (OpenID Connect Core 3.1.2.1, 15.5.2).", base=SPA_REDIRECT)
    assert page_of(browser.get(params + [("nonce", "n1")])).status == 200


def test_a_client_not_registered_with_openid_may_not_ask_for_it(browser: Browser) -> None:
    params = web_params(client_id="demo-partner", redirect_uri="http://127.0.0.1:8765/partner/callback",
                        scope="openid charges:read")
    assert_redirected_error(browser.get(params), "invalid_scope", "The client is not allowed the scope openid.",
                            base="http://127.0.0.1:8765/partner/callback")


@pytest.mark.slow
def test_signed_in_code_flow_gives_an_id_token_with_the_nonce(browser: Browser, tokens: TokenClient) -> None:
    page = page_of(browser.get(web_params(scope="openid profile charges:read", nonce="n-abc")))
    code = redirect_of(browser.submit(page)).one("code")
    body = body_of(tokens.exchange(code))
    _, claims = verified(body["id_token"])
    assert (claims["sub"], claims["nonce"], claims["acr"], claims["amr"]) == (ALICE, "n-abc", "password", ["pwd"])
    assert claims["auth_time"] <= claims["iat"]


# ------------------------------------------------------------------ UserInfo


def openid_token(tokens: TokenClient, scope: str = OIDC_SCOPE) -> str:
    return str(body_of(tokens.exchange(openid_code(scope=scope)))["access_token"])


USERINFO_HEADERS = {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"}


@pytest.mark.parametrize(("method", "in_body"), [("GET", False), ("POST", False), ("POST", True)])
def test_userinfo_returns_the_claims_of_the_granted_scopes(clock: ManualClock, tokens: TokenClient, method: str,
                                                           in_body: bool) -> None:
    result = userinfo(tokens, openid_token(tokens), method=method, in_body=in_body)
    headers = {k: v for k, v in headers_of(result).items() if k not in ("x-request-id", "Vary")}
    assert (result["statusCode"], headers) == (200, USERINFO_HEADERS)
    assert body_of(result) == {"sub": ALICE, "name": "Alice Example", "preferred_username": "alice",
                               "updated_at": body_of(result)["updated_at"], "email": "alice@demo.example",
                               "email_verified": True}


def test_userinfo_releases_only_what_the_scopes_allow(clock: ManualClock, tokens: TokenClient) -> None:
    assert body_of(userinfo(tokens, openid_token(tokens, "openid charges:read"))) == {"sub": ALICE}
    body = body_of(userinfo(tokens, openid_token(tokens, "openid email")))
    assert body == {"sub": ALICE, "email": "alice@demo.example", "email_verified": True}


def test_userinfo_refuses_a_token_without_openid(clock: ManualClock, tokens: TokenClient) -> None:
    result = userinfo(tokens, openid_token(tokens, "charges:read"))
    assert result["statusCode"] == 403
    challenge = headers_of(result)["WWW-Authenticate"]
    assert challenge.startswith('Bearer realm="api", error="insufficient_scope", error_description="The access token lacks the '
                                'scope openid.", scope="openid", DPoP algs=')
    assert "resource_metadata" not in challenge


def test_userinfo_without_a_token_is_a_bare_challenge(tokens: TokenClient) -> None:
    result = userinfo(tokens, None)
    assert result["statusCode"] == 401
    assert headers_of(result)["WWW-Authenticate"] == 'Bearer realm="api", DPoP algs="ES256 EdDSA RS256 PS256"'
    assert headers_of(result)["Content-Type"] == "application/problem+json"
    assert body_of(result)["code"] == "unauthenticated"


def test_userinfo_refuses_a_token_in_the_query(clock: ManualClock, tokens: TokenClient) -> None:
    token = openid_token(tokens)
    result = tokens.post(None, path="/oauth/userinfo", method="GET", raw_query=f"access_token={token}",
                         content_type=None)
    assert (result["statusCode"], body_of(result)["code"]) == (401, "unauthenticated")


def test_userinfo_refuses_an_id_token(clock: ManualClock, tokens: TokenClient) -> None:
    id_token = body_of(tokens.exchange(openid_code()))["id_token"]
    result = userinfo(tokens, id_token)
    assert result["statusCode"] == 401
    assert body_of(result)["detail"] == "The token is not an access token (typ must be at+jwt)."
    assert headers_of(result)["WWW-Authenticate"].startswith('Bearer realm="api", error="invalid_token"')


def test_userinfo_refuses_a_token_of_a_user_whose_sessions_were_ended(clock: ManualClock,
                                                                      tokens: TokenClient) -> None:
    from authgate.records import n, s
    from authgate.stores.users import UserStore

    token = openid_token(tokens)
    store = UserStore()
    store.db.update_item(TableName=store.table, Key={"tenant_id": s("demo"), "username": s("alice")},
                         UpdateExpression="SET sessions_valid_after = :t",
                         ExpressionAttributeValues={":t": n(int(clock()) + 1)})
    result = userinfo(tokens, token)
    assert (result["statusCode"], body_of(result)["detail"]) == (
        401, "The access token no longer speaks for a user of this server.")


def test_userinfo_sub_is_the_id_tokens(clock: ManualClock, tokens: TokenClient) -> None:
    body = body_of(tokens.exchange(openid_code()))
    assert body_of(userinfo(tokens, body["access_token"]))["sub"] == verified(body["id_token"])[1]["sub"]


def test_the_access_tokens_sub_is_the_id_tokens_and_userinfos(clock: ManualClock, tokens: TokenClient) -> None:
    """One subject for the person everywhere: their stable user_id (OIDC Core 2), never the username a new user of
    the same name would inherit; the username rides beside it for display."""
    body = body_of(tokens.exchange(openid_code()))
    access = claims_of(body["access_token"])
    assert (access["sub"], access["username"]) == (verified(body["id_token"])[1]["sub"], "alice")
    assert body_of(userinfo(tokens, body["access_token"]))["sub"] == access["sub"] == ALICE


def test_userinfo_answers_a_token_issued_when_sub_was_the_username(clock: ManualClock, tokens: TokenClient) -> None:
    """A token of before (sub the username, no username claim) stands until it expires."""
    from authgate.tokens.access_token import issue_access_token

    before = issue_access_token(issuer=ISSUER, subject="alice", client_id="demo-web", tenant="demo",
                                scope="openid profile", grant_id="g-before", acr="password", auth_time=int(clock()))
    assert "username" not in claims_of(before.token)
    result = userinfo(tokens, before.token)
    assert (result["statusCode"], body_of(result)) == (200, {
        "sub": ALICE, "name": "Alice Example", "preferred_username": "alice",
        "updated_at": body_of(result)["updated_at"]})


def test_userinfo_refuses_a_token_of_the_person_before_under_the_same_username(clock: ManualClock,
                                                                               tokens: TokenClient) -> None:
    from authgate.stores.users import UserStore

    token = openid_token(tokens)
    # Another person under the username alice (even one whose record says it is older than the token).
    UserStore().put_hash("demo", "alice", "!", created_at=int(clock()) - 3600, updated_at=int(clock()) - 3600)
    result = userinfo(tokens, token)
    assert (result["statusCode"], body_of(result)["detail"]) == (
        401, "The access token no longer speaks for a user of this server.")


def test_openid_configuration_names_the_userinfo_endpoint(invoke: Any, aws: None) -> None:
    from authgate_cli.local.events import HttpRequest, build_event

    path = "/.well-known/openid-configuration"
    result = invoke("jwks", build_event(HttpRequest("GET", path, "", [("Host", "127.0.0.1:3000")]), resource=path,
                                        path_params=None))
    document = json.loads(result["body"])
    assert (document["issuer"], document["userinfo_endpoint"]) == (ISSUER, f"{ISSUER}/oauth/userinfo")


def test_an_authorization_request_may_be_posted(browser: Browser) -> None:
    """OIDC Core 3.1.2.1 (conformance oidcc-ensure-post-request-succeeds): a POSTed request is treated as a GET."""
    page = page_of(browser.post(web_params(scope="openid charges:read", nonce="n1", login_hint="alice")))
    assert page.status == 200
    assert [(i["name"], i.get("value")) for i in page.inputs][2:] == [("username", "alice"), ("password", None)]
    refused = browser.post(web_params(scope="openid charges:read", prompt="none"))
    assert redirect_of(refused).params["error"] == ["login_required"]
