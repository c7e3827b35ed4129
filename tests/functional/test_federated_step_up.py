"""Step-up after a sign-in at a tenant's identity provider (docs/federation.md, "Step-up, max_age and
prompt=login"): a federated `password` sign-in asked for `mfa` gets authgate's own second factor (the record's
step_up "local") or goes back to the IdP asking for one (step_up "upstream"); max_age and prompt=login reach the IdP
and its answer is held to them."""

from __future__ import annotations

from typing import Any

from authgate.clock import ManualClock, seconds
from tests.functional.authorize_support import (
    Browser,
    assert_error_page,
    page_of,
    redirect_of,
    web_params,
)
from tests.functional.second_factor_support import BOB, bob_code, give
from tests.functional.token_support import TokenClient, body_of, claims_of
from tests.functional.upstream_support import (
    answer,
    back_to_flow,
    choose,
    offer,
    oidc_answer,
    onward_query,
)
from tests.upstream_oidc import ScriptedProvider

SCOPE = "openid charges:read"


def bob_at(provider: ScriptedProvider, **fields: Any) -> Any:
    """The IdP offered, and bob's identity there linked to bob (as after his proof on the link page)."""
    from authgate.federation import identities
    from authgate.federation.upstream import UpstreamIdentity

    idp = offer(provider, **fields)
    identities.link("demo", BOB, idp, UpstreamIdentity("demo", provider.issuer, "bob-upstream"), username="bob")
    return idp


def said(provider: ScriptedProvider, query: dict[str, str], **claims: Any) -> dict[str, str]:
    """The IdP's answer for bob, its times on the stack's clock."""
    now = seconds()
    return oidc_answer(provider, query, sub="bob-upstream", email="bob@demo.example", iat=now, exp=now + 300,
                       **claims)


def id_claims(invoke: Any, result: dict[str, Any]) -> dict[str, Any]:
    assert result["statusCode"] == 303, result["body"][:800]
    return claims_of(body_of(TokenClient(invoke).exchange(redirect_of(result).one("code")))["id_token"])


def sign_in_page(browser: Browser, **params: str) -> Any:
    page = page_of(browser.get(web_params(scope=SCOPE, **params)))
    assert page.status == 200, page.body[:500]
    return page


def test_step_up_local_asks_authgates_own_code_after_the_idp(
        browser: Browser, provider: ScriptedProvider, invoke: Any, clock: ManualClock) -> None:
    bob_at(provider)
    _onward, query = choose(browser, sign_in_page(browser, acr_values="mfa"), "idp-a")
    assert "acr_values" not in query
    step = page_of(back_to_flow(browser, answer(browser, said(provider, query))))
    assert step.status == 200
    assert any(i.get("name") == "code" for i in step.inputs), step.text()
    claims = id_claims(invoke, give(browser, step, bob_code(clock)))
    assert (claims["sub"], claims["acr"], sorted(claims["amr"])) == (BOB, "mfa", ["fed", "mfa", "otp"])


def test_an_idp_trusted_for_mfa_needs_no_step_of_authgates(
        browser: Browser, provider: ScriptedProvider, invoke: Any) -> None:
    bob_at(provider, trust_mfa=True, mfa_values=("urn:democorp:mfa",))
    _onward, query = choose(browser, sign_in_page(browser, acr_values="mfa"), "idp-a")
    result = back_to_flow(browser, answer(browser, said(provider, query, acr="urn:democorp:mfa")))
    claims = id_claims(invoke, result)
    assert (claims["sub"], claims["acr"]) == (BOB, "mfa")
    assert "fed" in claims["amr"]


def test_step_up_upstream_goes_back_to_the_idp_asking_for_its_second_factor(
        browser: Browser, provider: ScriptedProvider, invoke: Any) -> None:
    bob_at(provider, trust_mfa=True, mfa_values=("urn:democorp:mfa",), step_up="upstream")
    _onward, query = choose(browser, sign_in_page(browser, acr_values="mfa"), "idp-a")
    assert "acr_values" not in query
    again = back_to_flow(browser, answer(browser, said(provider, query, acr="urn:democorp:pwd")))
    asked = onward_query(again)
    assert asked["acr_values"] == "urn:democorp:mfa"
    result = back_to_flow(browser, answer(browser, said(provider, asked, acr="urn:democorp:mfa")))
    claims = id_claims(invoke, result)
    assert (claims["sub"], claims["acr"]) == (BOB, "mfa")


def test_step_up_upstream_that_the_idp_does_not_meet_is_unmet_authentication_requirements(
        browser: Browser, provider: ScriptedProvider) -> None:
    bob_at(provider, trust_mfa=True, mfa_values=("urn:democorp:mfa",), step_up="upstream")
    essential = '{"id_token":{"acr":{"essential":true,"values":["mfa"]}}}'
    _onward, query = choose(browser, sign_in_page(browser, claims=essential), "idp-a")
    asked = onward_query(back_to_flow(browser, answer(browser, said(provider, query, acr="urn:democorp:pwd"))))
    result = back_to_flow(browser, answer(browser, said(provider, asked, acr="urn:democorp:pwd")))
    redirect = redirect_of(result)
    assert redirect.one("error") == "unmet_authentication_requirements"


def test_prompt_login_and_max_age_reach_the_idp_and_an_older_sign_in_is_refused(
        browser: Browser, provider: ScriptedProvider) -> None:
    bob_at(provider)
    _onward, query = choose(browser, sign_in_page(browser, prompt="login", max_age="60"), "idp-a")
    assert (query["prompt"], query["max_age"]) == ("login", "60")
    old = seconds() - 600
    assert_error_page(answer(browser, said(provider, query, auth_time=old)), "upstream_sign_in_failed",
                      "This application asked you to sign in again, and your identity provider's answer is of an "
                      "earlier sign-in. Go back to the application and start again.")


def test_prompt_login_alone_refuses_a_sign_in_from_before_the_request(browser: Browser,
                                                                      provider: ScriptedProvider) -> None:
    bob_at(provider)
    _onward, query = choose(browser, sign_in_page(browser, prompt="login"), "idp-a")
    assert query["prompt"] == "login" and "max_age" not in query
    assert_error_page(answer(browser, said(provider, query, auth_time=seconds() - 600)), "upstream_sign_in_failed",
                      "This application asked you to sign in again, and your identity provider's answer is of an "
                      "earlier sign-in. Go back to the application and start again.")


def test_a_later_request_for_mfa_sends_an_idps_password_session_back_to_it(
        browser: Browser, provider: ScriptedProvider, invoke: Any) -> None:
    """Single sign-on at `password` from an IdP whose record steps up upstream: a request that needs mfa goes
    back to that IdP asking for it, and its answer raises the session."""
    bob_at(provider, trust_mfa=True, mfa_values=("urn:democorp:mfa",), step_up="upstream")
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    first = id_claims(invoke, back_to_flow(browser, answer(browser, said(provider, query, acr="urn:democorp:pwd"))))
    assert first["acr"] == "password"
    asked = onward_query(browser.get(web_params(scope=SCOPE, acr_values="mfa")))
    assert asked["acr_values"] == "urn:democorp:mfa"
    claims = id_claims(invoke, back_to_flow(browser, answer(browser, said(provider, asked, acr="urn:democorp:mfa"))))
    assert (claims["sub"], claims["acr"]) == (BOB, "mfa")


def test_a_later_request_for_mfa_asks_authgates_code_of_an_idps_session_by_default(
        browser: Browser, provider: ScriptedProvider, clock: ManualClock) -> None:
    bob_at(provider)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    assert back_to_flow(browser, answer(browser, said(provider, query)))["statusCode"] == 303
    step = page_of(browser.get(web_params(scope=SCOPE, acr_values="mfa")))
    assert step.status == 200
    assert any(i.get("name") == "code" for i in step.inputs), step.text()
