"""Strong authentication for money (RFC 9470): a charge at or above the tenant's threshold needs a user token
with acr "mfa" and a fresh auth_time; else 401 insufficient_user_authentication with the challenge, in every
shape, nothing created and the Idempotency-Key still free. The demo tenant's threshold is 10000, max age 300."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from authgate.clock import ManualClock
from authgate_cli.check.reading import parse_challenge
from bench.dynamodb_calls import counting
from tests.demo import (
    ALICE_ID,
    AUDIENCE,
    ISSUER,
    WEB_REDIRECT,
    WRITE,
    Demo,
    body,
    count_charges,
    headers,
)
from tests.demo import post_charge as post
from tests.functional.authorize_support import Browser, page_of, redirect_of, web_params
from tests.functional.token_support import TokenClient, body_of, claims_of

BIG = {"amount": 10000, "currency": "usd", "description": "Sofa"}
SMALL = {"amount": 9999, "currency": "usd", "description": "Chair"}
WEAK = ("A charge of 10000 or more needs a sign-in with a second factor (acr mfa); authorize again with "
        "acr_values=mfa and max_age=300.")
STALE = ("A charge of 10000 or more needs a sign-in at most 300 seconds old; authorize again with acr_values=mfa "
         "and max_age=300.")
POLICY = '"tenant";q=3000;w=60, "client";q=1200;w=60, "ip";q=600;w=60'
METADATA = f"{ISSUER}/.well-known/oauth-protected-resource/charges"


def challenge(detail: str) -> str:
    return (f'Bearer realm="api", error="insufficient_user_authentication", error_description="{detail}", '
            f'acr_values="mfa", max_age="300", resource_metadata="{METADATA}", '
            f'DPoP algs="ES256 EdDSA RS256 PS256", resource_metadata="{METADATA}"')


def user_token(client: str = "demo-web", *, acr: str = "", auth_time: int | None = None,
               grant_id: str | None = "grant-1", jkt: str | None = None) -> str:
    """An access token of alice's grant as the token endpoint signs it (the real signer, RFC 9068 2.2.1 claims)."""
    from authgate.tokens.access_token import issue_access_token

    return issue_access_token(issuer=ISSUER, subject="alice", client_id=client, tenant="demo", scope=WRITE,
                              grant_id=grant_id, acr=acr, auth_time=auth_time, jkt=jkt).token


def now() -> int:
    from authgate import clock

    return clock.seconds()


def shapes(detail: str, request_id: str) -> dict[str, tuple[str, Any]]:
    problem_type = f"{ISSUER}/problems/insufficient_user_authentication"
    title = "Stronger sign-in required"
    return {
        "problem": ("application/problem+json", {
            "type": problem_type, "title": title, "status": 401, "detail": detail,
            "instance": "/charges", "code": "insufficient_user_authentication", "traceId": request_id}),
        "jsonapi": ("application/vnd.api+json", {"jsonapi": {"version": "1.1"}, "errors": [{
            "status": "401", "code": "insufficient_user_authentication", "title": title,
            "links": {"type": problem_type}, "meta": {"traceId": request_id}, "detail": detail}]}),
        "legacy-a": ("application/json", {"error": "insufficient_user_authentication", "message": detail,
                                          "code": "insufficient_user_authentication", "status": 401}),
        "legacy-b": ("application/json", {"success": False, "errors": [
            {"field": "", "message": detail, "code": "insufficient_user_authentication"}]}),
    }


@pytest.mark.parametrize(("client", "accept", "shape"), [
    ("demo-web", None, "problem"),
    ("demo-web", "application/vnd.api+json", "jsonapi"),
    ("demo-legacy-a", None, "legacy-a"),
    ("demo-legacy-b", None, "legacy-b"),
])
def test_a_password_only_sign_in_is_challenged_in_every_shape(demo: Demo, invoke: Any, client: str,
                                                              accept: str | None, shape: str) -> None:
    before = count_charges()
    result = post(demo, invoke, user_token(client, acr="password", auth_time=now()), BIG, key=f"sca-{shape}",
                  accept=accept)
    request_id = headers(result)["x-request-id"]
    media, expected = shapes(WEAK, request_id)[shape]
    sent = dict(result["multiValueHeaders"])
    # The limiter counted the request (it was authenticated): its fields are on every answer.
    assert re.fullmatch(r'"tenant";r=\d+;t=\d+, "client";r=\d+;t=\d+, "ip";r=\d+;t=\d+', sent.pop("RateLimit")[0])
    assert (result["statusCode"], sent, body(result)) == (
        401, {"Content-Type": [media], "Vary": ["Accept"], "WWW-Authenticate": [challenge(WEAK)],
              "x-request-id": [request_id], "RateLimit-Policy": [POLICY]}, expected)
    scheme, params = parse_challenge(headers(result)["www-authenticate"])
    assert (scheme, params["error"], params["acr_values"], params["max_age"]) == (
        "Bearer", "insufficient_user_authentication", "mfa", "300")
    assert count_charges() == before


def test_the_idempotency_key_of_a_refused_charge_stays_free(demo: Demo, invoke: Any) -> None:
    """Nothing is written: the same key with a stepped-up token creates the charge (not a replay)."""
    refused = post(demo, invoke, user_token(acr="password", auth_time=now()), BIG, key="sca-retry")
    assert refused["statusCode"] == 401
    created = post(demo, invoke, user_token(acr="mfa", auth_time=now(), grant_id="grant-2"), BIG, key="sca-retry")
    assert created["statusCode"] == 201, body(created)
    assert "idempotent-replayed" not in headers(created)
    assert {k: body(created)[k] for k in ("amount", "currency", "description")} == BIG
    again = post(demo, invoke, user_token(acr="mfa", auth_time=now(), grant_id="grant-2"), BIG, key="sca-retry")
    assert (again["statusCode"], headers(again)["idempotent-replayed"], body(again)) == (201, "true", body(created))


def test_an_mfa_sign_in_older_than_the_max_age_is_challenged_for_freshness(demo: Demo, invoke: Any,
                                                                          clock: ManualClock) -> None:
    """The boundary to the second: the clock is stopped, so no second passes between the token and the charge."""
    before = count_charges()
    result = post(demo, invoke, user_token(acr="mfa", auth_time=now() - 301), BIG)
    assert (result["statusCode"], headers(result)["www-authenticate"], body(result)["detail"]) == (
        401, challenge(STALE), STALE)
    assert count_charges() == before
    exactly = post(demo, invoke, user_token(acr="mfa", auth_time=now() - 300), BIG)
    assert exactly["statusCode"] == 201, body(exactly)


@pytest.mark.parametrize(("token", "charge", "status"), [
    # Below the threshold: no second factor needed.
    (lambda: user_token(acr="password", auth_time=now()), SMALL, 201),
    # client_credentials (no user, sub = client): merchant-initiated, not subject.
    (lambda: None, BIG, 201),
    # A grant made before acr was recorded counts as no second factor.
    (lambda: user_token(), BIG, 401),
    # The password grant's tokens carry acr "password" (no grant id): a user's, so subject.
    (lambda: user_token(acr="password", auth_time=now(), grant_id=None), BIG, 401),
])
def test_who_is_subject_to_the_threshold(demo: Demo, invoke: Any, token: Any, charge: dict[str, Any],
                                        status: int) -> None:
    bearer = token() or demo.token("demo-service")
    assert post(demo, invoke, bearer, charge)["statusCode"] == status


def test_a_tenant_without_a_threshold_asks_nothing(demo: Demo, invoke: Any) -> None:
    from authgate import caches
    from authgate.stores.tenants import TenantStore

    store = TenantStore()
    tenant = store.get("demo")
    assert tenant is not None
    store.replace(tenant._replace(sca_threshold=None))
    caches.reset()
    assert post(demo, invoke, user_token(acr="password", auth_time=now()), BIG)["statusCode"] == 201


def test_a_dpop_bound_token_is_challenged_on_the_dpop_scheme(demo: Demo, invoke: Any) -> None:
    from tests.dpop_support import DpopKey

    key = DpopKey()
    token = user_token(acr="password", auth_time=now(), jkt=key.jkt)
    proof = key.proof("POST", f"{ISSUER}/charges", access_token=token)
    result = invoke("charges", demo.event("POST", body=BIG, client=None, headers={
        "Authorization": f"DPoP {token}", "DPoP": proof}))
    assert result["statusCode"] == 401
    assert headers(result)["www-authenticate"] == (
        f'DPoP algs="ES256 EdDSA RS256 PS256", error="insufficient_user_authentication", '
        f'error_description="{WEAK}", acr_values="mfa", max_age="300", resource_metadata="{METADATA}", '
        f'Bearer realm="api", resource_metadata="{METADATA}"')


def test_the_threshold_costs_no_dynamodb_call(demo: Demo, invoke: Any) -> None:
    """The tenant's threshold comes with the currencies' (warm-cached) read: a stepped-up charge makes the calls
    of any charge, and a refused one writes nothing."""
    post(demo, invoke, demo.token(), SMALL)  # warm the caches
    with counting() as strong:
        assert post(demo, invoke, user_token(acr="mfa", auth_time=now()), BIG, key="sca-calls")["statusCode"] == 201
    with counting() as refused:
        assert post(demo, invoke, user_token(acr="password", auth_time=now()), BIG, key="sca-calls-2")[
            "statusCode"] == 401
    assert strong.operations == ["BatchGetItem", "UpdateItem", "TransactWriteItems"]
    assert refused.operations == ["BatchGetItem", "UpdateItem"]


@pytest.mark.slow
def test_tokens_of_a_code_and_its_refreshes_carry_the_sign_in(demo: Demo, browser: Browser, tokens: TokenClient,
                                                              invoke: Any) -> None:
    """RFC 9068 2.2.1: acr and auth_time of the password sign-in, the same after a refresh (never raised), and a
    big charge with them is challenged."""
    signed_in_at = now()
    page = page_of(browser.get(web_params(scope=WRITE)))
    code = redirect_of(browser.submit(page)).one("code")
    issued = body_of(tokens.exchange(code))
    claims = claims_of(issued["access_token"])
    assert (claims["acr"], claims["sub"], claims["username"], claims["aud"]) == ("password", ALICE_ID, "alice", AUDIENCE)
    assert signed_in_at <= claims["auth_time"] <= claims["iat"]
    refreshed = claims_of(body_of(tokens.refresh(issued["refresh_token"]))["access_token"])
    assert (refreshed["acr"], refreshed["auth_time"]) == ("password", claims["auth_time"])
    refused = post(demo, invoke, issued["access_token"], BIG)
    assert (refused["statusCode"], headers(refused)["www-authenticate"]) == (401, challenge(WEAK))


def test_a_code_of_an_mfa_sign_in_pays_the_big_charge(demo: Demo, tokens: TokenClient, invoke: Any) -> None:
    """The interface the second-factor sign-in writes (CodeStore.create(authentication=...)): its tokens meet the
    challenge."""
    from authgate.single_use.authentication import Authentication
    from authgate.stores.codes import CodeStore
    from tests.demo import CHALLENGE

    signed_in = Authentication("usr_demoalice0000000000000", now() - 10, "mfa", ("pwd", "otp", "mfa"))
    code = CodeStore().create(client_id="demo-web", tenant_id="demo", redirect_uri=WEB_REDIRECT,
                              code_challenge=CHALLENGE, code_challenge_method="S256", scope=WRITE, subject="alice",
                              authentication=signed_in)
    issued = body_of(tokens.exchange(code))
    claims = claims_of(issued["access_token"])
    assert (claims["acr"], claims["auth_time"]) == ("mfa", signed_in.auth_time)
    created = post(demo, invoke, issued["access_token"], BIG, key=str(uuid.uuid4()))
    assert created["statusCode"] == 201, body(created)
