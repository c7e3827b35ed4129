"""Pushed authorization requests (RFC 9126) through the token and authorize functions: the push
(201, errors as 400 OAuth JSON at push time), the one-time, client-bound, short-lived
request_uri at /oauth/authorize, PAR required per client, per deployment and by the fapi2 profile."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest

from authgate.clock import ManualClock
from tests.conftest import START
from tests.demo import CHALLENGE, ISSUER, SECRETS, SPA_REDIRECT, VERIFIER, WEB_REDIRECT
from tests.functional.assertion_support import assertion, assertion_fields, demo_fapi_key
from tests.functional.authorize_support import (
    Browser,
    assert_error_page,
    page_of,
    redirect_of,
    web_params,
)
from tests.functional.token_support import (
    TokenClient,
    assert_error,
    assert_invalid_client,
    basic,
    body_of,
    push,
    pushed_uri,
)

FAPI_REDIRECT = "http://127.0.0.1:8765/fapi/callback"
def by_reference(client_id: str, request_uri: str, **extra: str) -> list[tuple[str, str]]:
    return [("client_id", client_id), ("request_uri", request_uri), *extra.items()]


def fapi_push(tokens: TokenClient, now: int, **overrides: str | None) -> dict[str, Any]:
    params = {"response_type": "code", "client_id": "demo-fapi", "redirect_uri": FAPI_REDIRECT,
              "scope": "charges:read", "state": "s-fapi", "code_challenge": CHALLENGE,
              "code_challenge_method": "S256"}
    params.update(overrides)
    fields = [(k, v) for k, v in params.items() if v is not None]
    return tokens.post(fields + assertion_fields(assertion(demo_fapi_key(), "demo-fapi", now)), path="/oauth/par")


# ---------------------------------------------------------------- the flow

@pytest.mark.slow
def test_a_pushed_request_leads_to_a_code_and_tokens(tokens: TokenClient, browser: Browser,
                                                     clock: ManualClock) -> None:
    request_uri = pushed_uri(push(tokens, web_params()))
    page = page_of(browser.get(by_reference("demo-web", request_uri)))
    assert page.status == 200, page.body[:300]
    redirect = redirect_of(browser.submit(page))
    assert (redirect.base, sorted(redirect.params)) == (WEB_REDIRECT, ["code", "iss", "state"])
    assert (redirect.one("state"), redirect.one("iss")) == ("xyz-state", ISSUER)
    exchanged = tokens.exchange(redirect.one("code"))
    assert exchanged["statusCode"] == 200, exchanged["body"]


def test_a_public_client_pushes_with_its_client_id_alone(tokens: TokenClient, browser: Browser,
                                                         clock: ManualClock) -> None:
    request_uri = pushed_uri(push(tokens, web_params(client_id="demo-spa", redirect_uri=SPA_REDIRECT),
                                  client_id="demo-spa"))
    assert page_of(browser.get(by_reference("demo-spa", request_uri))).status == 200


@pytest.mark.slow
def test_the_fapi2_client_pushes_with_private_key_jwt(tokens: TokenClient, browser: Browser,
                                                      clock: ManualClock) -> None:
    request_uri = pushed_uri(fapi_push(tokens, START))
    page = page_of(browser.get(by_reference("demo-fapi", request_uri)))
    redirect = redirect_of(browser.submit(page))
    assert (redirect.base, redirect.one("iss"), redirect.one("state")) == (FAPI_REDIRECT, ISSUER, "s-fapi")
    from authgate.stores.codes import CodeStore

    record = CodeStore().consume(redirect.one("code"))
    assert record.expires_at - record.issued_at <= 60  # FAPI 2.0 5.3.2.1: short-lived codes


# ---------------------------------------------------------------- request_uri misuse at /authorize

def test_a_request_uri_is_single_use(tokens: TokenClient, browser: Browser, clock: ManualClock) -> None:
    request_uri = pushed_uri(push(tokens, web_params()))
    assert page_of(browser.get(by_reference("demo-web", request_uri))).status == 200
    assert_error_page(browser.get(by_reference("demo-web", request_uri)), "invalid_request_uri",
                      "The request_uri has already been used; each is good for one authorization request. "
                      "Push the authorization request again.")


def test_an_expired_request_uri_is_refused(tokens: TokenClient, browser: Browser, clock: ManualClock) -> None:
    request_uri = pushed_uri(push(tokens, web_params()))
    clock.advance(60)
    assert_error_page(browser.get(by_reference("demo-web", request_uri)), "invalid_request_uri",
                      "The request_uri has expired. Push the authorization request again and use it at once.")


def test_another_clients_request_uri_is_refused_and_left_for_its_owner(tokens: TokenClient, browser: Browser,
                                                                       clock: ManualClock) -> None:
    request_uri = pushed_uri(push(tokens, web_params()))
    assert_error_page(browser.get(by_reference("demo-spa", request_uri)), "invalid_request_uri",
                      "The request_uri was not pushed by this client_id.")
    assert page_of(browser.get(by_reference("demo-web", request_uri))).status == 200


def test_an_unknown_request_uri_is_refused(browser: Browser, clock: ManualClock) -> None:
    assert_error_page(browser.get(by_reference("demo-web", "urn:ietf:params:oauth:request_uri:nope")),
                      "invalid_request_uri",
                      "The request_uri is unknown. Push the authorization request again (POST /oauth/par).")


@pytest.mark.slow
def test_query_parameters_beside_request_uri_are_ignored(tokens: TokenClient, browser: Browser,
                                                         clock: ManualClock) -> None:
    """RFC 9126 4 with RFC 9101 6.3: only the pushed parameters count, whatever the query adds."""
    request_uri = pushed_uri(push(tokens, web_params(scope="charges:read")))
    query = by_reference("demo-web", request_uri, redirect_uri="https://evil.example/cb", scope="charges:refund",
                         state="forged", code_challenge="A" * 43, response_type="token")
    page = page_of(browser.get(query))
    assert page.status == 200 and "charges:refund" not in page.body and "charges:read" in page.body
    redirect = redirect_of(browser.submit(page))
    assert (redirect.base, redirect.one("state")) == (WEB_REDIRECT, "xyz-state")
    assert tokens.exchange(redirect.one("code"))["statusCode"] == 200  # the pushed challenge, not the query's


# ---------------------------------------------------------------- PAR required

def test_the_fapi2_client_may_not_send_an_unpushed_request(browser: Browser, clock: ManualClock) -> None:
    params = web_params(client_id="demo-fapi", redirect_uri=FAPI_REDIRECT)
    assert_error_page(browser.get(params), "invalid_request",
                      "This client must push its authorization requests (POST /oauth/par) and send only client_id "
                      "and request_uri here (RFC 9126).")


def test_a_deployment_can_require_par_for_every_client(tokens: TokenClient, browser: Browser,
                                                       monkeypatch: pytest.MonkeyPatch, invoke: Any) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_REQUIRE_PAR", "true")
    caches.reset()
    assert_error_page(browser.get(web_params()), "invalid_request",
                      "This client must push its authorization requests (POST /oauth/par) and send only client_id "
                      "and request_uri here (RFC 9126).")
    assert page_of(browser.get(by_reference("demo-web", pushed_uri(push(tokens, web_params()))))).status == 200


def test_a_client_registered_to_require_par(tokens: TokenClient, browser: Browser) -> None:

    from authgate.stores.clients import ClientStore

    store = ClientStore()
    client = store.get("demo-web")
    assert client is not None
    store.replace(client._replace(require_pushed_authorization_requests=True))
    assert browser.get(web_params())["statusCode"] == 400
    assert page_of(browser.get(by_reference("demo-web", pushed_uri(push(tokens, web_params()))))).status == 200


# ---------------------------------------------------------------- errors at push time (RFC 9126 2.3)

@pytest.mark.parametrize(("overrides", "error", "description", "code"), [
    ({"redirect_uri": "https://evil.example/cb"}, "invalid_request",
     "The redirect_uri does not match a URI registered for this client.", "redirect_uri_mismatch"),
    ({"response_type": "token"}, "invalid_request", "Only response_type=code is supported.",
     "unsupported_response_type"),
    ({"scope": "charges:admin"}, "invalid_scope", "Unknown scope charges:admin.", None),
    ({"code_challenge_method": "plain"}, "invalid_request",
     "Only code_challenge_method=S256 is supported (RFC 7636 4.3).", None),
    ({"request": "eyJ.x.y"}, "invalid_request",
     ("Request objects (the request parameter, RFC 9101) are not supported; push the authorization parameters "
     "themselves."), None),
    ({"request_uri": "urn:ietf:params:oauth:request_uri:x"}, "invalid_request",
     "request_uri must not be pushed (RFC 9126 2.1).", None),
])
def test_a_bad_authorization_request_fails_at_push_time(tokens: TokenClient, overrides: dict[str, str], error: str,
                                                        description: str, code: str | None) -> None:
    assert_error(push(tokens, web_params(**overrides)), 400, error, description, code=code)


def test_push_requires_client_authentication(tokens: TokenClient) -> None:
    assert_invalid_client(tokens.post(web_params(), path="/oauth/par", auth=basic("demo-web", "wrong")))
    assert_invalid_client(tokens.post(web_params(client_id="demo-web"), path="/oauth/par"),
                          "Client authentication failed.")


def test_the_pushed_client_id_must_be_the_authenticated_client(tokens: TokenClient) -> None:
    result = tokens.post(web_params(client_id="demo-spa"), path="/oauth/par", auth=basic("demo-web", SECRETS["demo-web"]))
    assert_error(result, 400, "invalid_request", "client_id in the body differs from the Basic credentials.")


def test_parameters_in_the_query_of_a_push_are_refused(tokens: TokenClient) -> None:
    result = tokens.post(web_params(), path="/oauth/par", auth=basic("demo-web", SECRETS["demo-web"]),
                         raw_query=urlencode({"scope": "charges:read"}))
    assert_error(result, 400, "invalid_request", "Parameters must be sent in the request body, not the URI query.")


@pytest.mark.parametrize(("overrides", "description"), [
    ({"code_challenge": None, "code_challenge_method": None},
     "This client's profile (FAPI 2.0) requires PKCE: send code_challenge with code_challenge_method=S256."),
    ({"redirect_uri": None},
     "This client's profile (FAPI 2.0) requires redirect_uri in the pushed authorization request."),
])
def test_the_fapi2_profile_is_enforced_at_push_time(tokens: TokenClient, clock: ManualClock,
                                                    overrides: dict[str, None], description: str) -> None:
    assert_error(fapi_push(tokens, START, **overrides), 400, "invalid_request", description)


def test_the_fapi2_client_cannot_push_with_a_secret(tokens: TokenClient, clock: ManualClock) -> None:
    fields = web_params(client_id="demo-fapi", redirect_uri=FAPI_REDIRECT)
    assert_invalid_client(tokens.post(fields + [("client_secret", "anything")], path="/oauth/par"))


def test_metadata_advertises_par(invoke: Any, demo: Any) -> None:
    from authgate.oauth.discovery.authorization_server import metadata

    doc = metadata(ISSUER)
    assert doc["pushed_authorization_request_endpoint"] == f"{ISSUER}/oauth/par"
    assert doc["require_pushed_authorization_requests"] is False
    assert "private_key_jwt" in doc["token_endpoint_auth_methods_supported"]
    from authgate.oauth.token.client_assertion import ALGORITHMS

    assert doc["token_endpoint_auth_signing_alg_values_supported"] == list(ALGORITHMS)


@pytest.mark.slow
def test_code_verifier_of_the_pushed_challenge(tokens: TokenClient, browser: Browser, clock: ManualClock) -> None:
    request_uri = pushed_uri(push(tokens, web_params()))
    redirect = redirect_of(browser.submit(page_of(browser.get(by_reference("demo-web", request_uri)))))
    result = tokens.exchange(redirect.one("code"), verifier=VERIFIER[:-1] + "x")
    assert_error(result, 400, "invalid_grant", "code_verifier does not match the code challenge (RFC 7636 4.6).")


# ---------------------------------------------------------------- DPoP with PAR (RFC 9449 10.1) and fapi2

def fapi_code(tokens: TokenClient, browser: Browser, now: int, headers: list[tuple[str, str]] | None = None,
              **overrides: str | None) -> str:
    params = {"response_type": "code", "client_id": "demo-fapi", "redirect_uri": FAPI_REDIRECT, "scope": "charges:read",
              "state": "s", "code_challenge": CHALLENGE, "code_challenge_method": "S256"}
    params.update(overrides)
    fields = [(k, v) for k, v in params.items() if v is not None]
    pushed = tokens.post(fields + assertion_fields(assertion(demo_fapi_key(), "demo-fapi", now)), path="/oauth/par",
                         headers=headers)
    page = page_of(browser.get(by_reference("demo-fapi", pushed_uri(pushed))))
    return redirect_of(browser.submit(page)).one("code")


def fapi_exchange(tokens: TokenClient, code: str, now: int, proof: str | None) -> dict[str, Any]:
    fields = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", FAPI_REDIRECT),
              ("code_verifier", VERIFIER)] + assertion_fields(assertion(demo_fapi_key(), "demo-fapi", now))
    return tokens.post(fields, headers=[("DPoP", proof)] if proof else None)


@pytest.mark.slow
def test_the_fapi2_client_gets_only_dpop_bound_tokens(tokens: TokenClient, browser: Browser,
                                                      clock: ManualClock) -> None:
    from tests.dpop_support import DpopKey

    code = fapi_code(tokens, browser, START)
    refused = fapi_exchange(tokens, code, START, None)
    assert_error(refused, 400, "invalid_dpop_proof",
                 "This client's access tokens must be DPoP-bound: send a DPoP proof (RFC 9449 5.2).")
    key = DpopKey()
    code = fapi_code(tokens, browser, START)
    granted = fapi_exchange(tokens, code, START, key.proof("POST", f"{ISSUER}/oauth/token", iat=START))
    assert granted["statusCode"] == 200, granted["body"]
    assert body_of(granted)["token_type"] == "DPoP"


def fapi_refresh(tokens: TokenClient, refresh_token: str, now: int, proof: str) -> dict[str, Any]:
    fields = [("grant_type", "refresh_token"), ("refresh_token", refresh_token)] + assertion_fields(
        assertion(demo_fapi_key(), "demo-fapi", now))
    return tokens.post(fields, headers=[("DPoP", proof)])


@pytest.mark.slow
def test_a_fapi2_refresh_token_is_not_rotated(tokens: TokenClient, browser: Browser, clock: ManualClock) -> None:
    """FAPI 2.0 Security Profile 5.3.2.1 item 9: no rotation. The same token refreshes again and
    again (a lost response costs the client nothing) until its grant is revoked."""
    from tests.dpop_support import DpopKey

    key = DpopKey()
    token_url = f"{ISSUER}/oauth/token"
    code = fapi_code(tokens, browser, START)
    granted = body_of(fapi_exchange(tokens, code, START, key.proof("POST", token_url, iat=START)))
    refresh_token = granted["refresh_token"]
    access_tokens = {granted["access_token"]}
    for _ in range(3):
        result = fapi_refresh(tokens, refresh_token, START, key.proof("POST", token_url, iat=START))
        assert result["statusCode"] == 200, result["body"]
        body = body_of(result)
        assert (body["refresh_token"], body["token_type"], body["scope"]) == (refresh_token, "DPoP", "charges:read")
        access_tokens.add(body["access_token"])
    assert len(access_tokens) == 4
    fields = [("token", refresh_token)] + assertion_fields(assertion(demo_fapi_key(), "demo-fapi", START))
    assert tokens.post(fields, path="/oauth/revoke")["statusCode"] == 200
    assert_error(fapi_refresh(tokens, refresh_token, START, key.proof("POST", token_url, iat=START)),
                 400, "invalid_grant", "The refresh token has been revoked.")


@pytest.mark.slow
def test_a_fapi2_refresh_token_still_needs_the_clients_dpop_key_and_authentication(
        tokens: TokenClient, browser: Browser, clock: ManualClock) -> None:
    from tests.dpop_support import DpopKey

    key = DpopKey()
    token_url = f"{ISSUER}/oauth/token"
    code = fapi_code(tokens, browser, START)
    refresh_token = body_of(fapi_exchange(tokens, code, START, key.proof("POST", token_url, iat=START)))["refresh_token"]
    # Another client presenting it is refused; without a DPoP proof the client itself is too.
    assert_error(tokens.refresh(refresh_token), 400, "invalid_grant", "The refresh token was issued to another client.")
    fields = [("grant_type", "refresh_token"), ("refresh_token", refresh_token)] + assertion_fields(
        assertion(demo_fapi_key(), "demo-fapi", START))
    assert_error(tokens.post(fields), 400, "invalid_dpop_proof",
                 "This client's access tokens must be DPoP-bound: send a DPoP proof (RFC 9449 5.2).")
    assert fapi_refresh(tokens, refresh_token, START, key.proof("POST", token_url, iat=START))["statusCode"] == 200


@pytest.mark.slow
def test_a_dpop_proof_at_par_binds_the_code_to_its_key(tokens: TokenClient, browser: Browser,
                                                       clock: ManualClock) -> None:
    from tests.dpop_support import DpopKey

    bound, other = DpopKey(), DpopKey()
    par_proof = bound.proof("POST", f"{ISSUER}/oauth/par", iat=START)
    code = fapi_code(tokens, browser, START, headers=[("DPoP", par_proof)])
    stolen = fapi_exchange(tokens, code, START, other.proof("POST", f"{ISSUER}/oauth/token", iat=START))
    assert_error(stolen, 400, "invalid_grant",
                 "The DPoP proof's key is not the key this authorization code is bound to.")
    code = fapi_code(tokens, browser, START, headers=[("DPoP", bound.proof("POST", f"{ISSUER}/oauth/par", iat=START))])
    ok = fapi_exchange(tokens, code, START, bound.proof("POST", f"{ISSUER}/oauth/token", iat=START))
    assert ok["statusCode"] == 200, ok["body"]


def test_dpop_jkt_and_a_proof_of_another_key_at_par_are_refused(tokens: TokenClient, clock: ManualClock) -> None:
    from tests.dpop_support import DpopKey

    key = DpopKey()
    result = fapi_push_with(tokens, dpop_jkt=DpopKey().jkt,
                            headers=[("DPoP", key.proof("POST", f"{ISSUER}/oauth/par", iat=START))])
    assert_error(result, 400, "invalid_dpop_proof",
                 "dpop_jkt does not match the key of the DPoP proof (RFC 9449 10.1).")


def fapi_push_with(tokens: TokenClient, headers: list[tuple[str, str]] | None = None, **extra: str) -> dict[str, Any]:
    fields = [("response_type", "code"), ("client_id", "demo-fapi"), ("redirect_uri", FAPI_REDIRECT),
              ("scope", "charges:read"), ("code_challenge", CHALLENGE), ("code_challenge_method", "S256"),
              *extra.items()]
    return tokens.post(fields + assertion_fields(assertion(demo_fapi_key(), "demo-fapi", START)), path="/oauth/par",
                       headers=headers)
