"""Sign-in through a tenant's OpenID Connect identity provider at the authorization endpoint (docs/federation.md):
the button, home-realm discovery, the callback's checks in their order, provisioning, linking after proof, the
refusals, and the attacks a broker must refuse (state, replay, another browser, mix-up, email takeover).

The provider is scripted on a real HTTPS server (tests/upstream_oidc.py); authgate runs in-process on moto. The
browser e2e tests drive panva's oidc-provider instead (tests/e2e/test_federated_sign_in_browser.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.demo import ALICE_ID, ISSUER
from tests.document_server import DocumentServer
from tests.functional.authorize_support import (
    Browser,
    assert_error_page,
    headers_of,
    page_of,
    redirect_of,
)
from tests.functional.token_support import TokenClient, body_of, claims_of
from tests.functional.upstream_support import (
    answer,
    back_to_flow,
    choose,
    offer,
    oidc_answer,
    post,
    sign_in_page,
    tokens_of,
)
from tests.upstream_oidc import CLIENT_ID, ScriptedProvider

STARTED_ELSEWHERE = ("This sign-in is unknown, was already completed, expired, or was started in another browser. Go "
                     "back to the application and start again.")
REFUSED = ("Your identity provider's answer could not be accepted. Go back to the application and start again; if it "
           "happens again, tell your organisation's administrator.")
NOT_ALLOWED = ("You cannot sign in here with that account. Sign in another way, or ask your organisation's "
               "administrator for access.")


def test_the_sign_in_page_offers_a_button_per_idp_and_names_the_claimed_domains(
        browser: Browser, provider: ScriptedProvider) -> None:
    offer(provider, domains=("democorp.example",))
    page = sign_in_page(browser)
    (button,) = [b for b in page.buttons if b.get("name") == "upstream"]
    assert button == {"type": "submit", "name": "upstream", "value": "idp-a", "formnovalidate": None,
                      "class": "secondary"}
    assert "Sign in with IDP-A SSO" in page.text()
    assert ("With an email address at democorp.example, leave the password empty: you sign in with IDP-A SSO."
            in page.text())


def test_a_tenant_without_idps_shows_no_button(browser: Browser, provider: ScriptedProvider) -> None:
    page = sign_in_page(browser)
    assert [b for b in page.buttons if b.get("name") == "upstream"] == []
    assert "Sign in with" not in page.text()


def test_first_sign_in_provisions_the_person_and_the_client_gets_its_code(
        browser: Browser, provider: ScriptedProvider, invoke: Any) -> None:
    from authgate.stores.linked_identities import LinkedIdentityStore

    offer(provider, create_users=True)
    onward, query = choose(browser, sign_in_page(browser), "idp-a")
    headers = headers_of(onward)
    assert headers["Set-Cookie"].startswith("authgate_upstream=")
    assert headers["Set-Cookie"].endswith("; HttpOnly; SameSite=Lax; Path=/; Max-Age=600")
    assert set(query) == {"response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge",
                          "code_challenge_method"}
    assert (query["response_type"], query["client_id"], query["redirect_uri"], query["scope"],
            query["code_challenge_method"]) == ("code", CLIENT_ID, f"{ISSUER}/oauth/federation/callback",
                                                "openid email profile", "S256")
    back = answer(browser, oidc_answer(provider, query, email="carol@elsewhere.example"))
    tokens = tokens_of(invoke, back_to_flow(browser, back))
    claims = claims_of(tokens["access_token"])
    link = LinkedIdentityStore().get("demo", provider.issuer, "carol-upstream-1")
    assert link is not None
    assert claims["sub"] == link.user_id != ALICE_ID
    (token_request, _headers) = provider.token_requests()[0]
    assert token_request["grant_type"] == "authorization_code"
    assert token_request["redirect_uri"] == f"{ISSUER}/oauth/federation/callback"
    assert len(token_request["code_verifier"]) >= 43


def test_the_session_keeps_the_idp_and_signs_in_the_next_authorization_at_once(
        browser: Browser, provider: ScriptedProvider, invoke: Any) -> None:
    from authgate.stores.sessions import SessionStore

    offer(provider, create_users=True)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    first = back_to_flow(browser, answer(browser, oidc_answer(provider, query, sid="upstream-session-9")))
    user_id = claims_of(tokens_of(invoke, first)["access_token"])["sub"]
    secret = dict(p.split("=", 1) for p in (browser.cookie or "").split("; "))["authgate_session"]
    session = SessionStore().live(secret)
    assert session is not None and session.upstream is not None
    assert (session.user_id, session.acr, session.amr) == (user_id, "password", ("fed",))
    assert (session.upstream.issuer, session.upstream.idp_id, session.upstream.protocol, session.upstream.subject,
            session.upstream.sid) == (provider.issuer, "idp-a", "oidc", "carol-upstream-1", "upstream-session-9")
    # Single sign-on: the next authorization in this browser goes straight back with a code.
    from tests.functional.authorize_support import web_params

    again = browser.get(web_params())
    assert again["statusCode"] == 302
    assert claims_of(body_of(TokenClient(invoke).exchange(redirect_of(again).one("code")))["access_token"])["sub"] \
        == user_id


@pytest.mark.slow
def test_a_second_sign_in_at_the_idp_finds_the_person_it_provisioned(
        browser: Browser, provider: ScriptedProvider, invoke: Any) -> None:
    offer(provider, create_users=True)
    subjects = []
    for attempt in (browser, Browser(browser.invoke)):
        _onward, query = choose(attempt, sign_in_page(attempt), "idp-a")
        result = back_to_flow(attempt, answer(attempt, oidc_answer(provider, query)))
        subjects.append(claims_of(tokens_of(invoke, result)["access_token"])["sub"])
    assert subjects[0] == subjects[1]


def test_home_realm_discovery_sends_a_claimed_email_to_its_idp(browser: Browser, provider: ScriptedProvider) -> None:
    offer(provider, domains=("democorp.example",))
    page = sign_in_page(browser)
    result = post(browser, [*page.hidden().items(), ("username", "Carol@DemoCorp.example"), ("password", ""),
                            ("decision", "approve")])
    from tests.functional.upstream_support import onward_query

    query = onward_query(result)
    assert query["login_hint"] == "Carol@DemoCorp.example"
    assert query["client_id"] == CLIENT_ID


def test_an_email_no_idp_claims_gets_the_answer_it_always_got(browser: Browser, provider: ScriptedProvider) -> None:
    offer(provider, domains=("democorp.example",))
    page = sign_in_page(browser)
    result = post(browser, [*page.hidden().items(), ("username", "carol@other.example"), ("password", ""),
                            ("decision", "approve")])
    again = page_of(result)
    assert again.status == 200
    assert [m.text for m in again.messages if not m.hidden] == ["Enter your username and password, then choose Approve."]
    assert provider.token_requests() == []


def test_no_account_and_no_provisioning_is_refused_asking_the_administrator(
        browser: Browser, provider: ScriptedProvider) -> None:
    offer(provider)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    result = back_to_flow(browser, answer(browser, oidc_answer(provider, query, email="nobody@elsewhere.example")))
    again = page_of(result)
    assert again.status == 200
    assert [m.text for m in again.messages if not m.hidden] == [NOT_ALLOWED]
    assert "Location" not in again.headers


def test_a_disabled_person_is_refused_with_the_same_words(browser: Browser, provider: ScriptedProvider) -> None:
    from authgate.stores.users import UserStore

    offer(provider, create_users=True)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    assert back_to_flow(browser, answer(browser, oidc_answer(provider, query)))["statusCode"] == 303
    from authgate.stores.linked_identities import LinkedIdentityStore

    link = LinkedIdentityStore().get("demo", provider.issuer, "carol-upstream-1")
    assert link is not None
    user = UserStore().get("demo", link.username)
    assert user is not None
    UserStore().set_disabled("demo", user.username, True)
    fresh = Browser(browser.invoke)
    _onward, query = choose(fresh, sign_in_page(fresh), "idp-a")
    again = page_of(back_to_flow(fresh, answer(fresh, oidc_answer(provider, query))))
    assert [m.text for m in again.messages if not m.hidden] == [NOT_ALLOWED]


# ------------------------------------------------------------------ linking an account the person has


@pytest.mark.slow
def test_an_unverified_takeover_of_alices_email_is_not_a_sign_in_but_a_proof_page(
        browser: Browser, provider: ScriptedProvider) -> None:
    """The IdP is not trusted for emails: an upstream account claiming alice's address gets the link page, which
    asks for alice's password; it never signs in as alice."""
    offer(provider, create_users=True)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    result = back_to_flow(browser, answer(browser, oidc_answer(provider, query, email="alice@demo.example",
                                                               email_verified=True, sub="mallory")))
    page = page_of(result)
    assert page.status == 200
    assert page.text() == (
        "Link your account An account here already uses the email address alice@demo.example . To sign in with "
        "IDP-A SSO , link it to that account: sign in to the account once, with its password or one of its passkeys. "
        "After that, IDP-A SSO is enough. Username or email of your account Password Link and continue")
    assert {i["name"] for i in page.inputs if i.get("type") != "hidden"} == {"username", "password"}
    wrong = page_of(post(browser, [*page.hidden().items(), ("username", "bob"), ("password", "bob-password")]))
    assert [m.text for m in wrong.messages if not m.hidden] == [(
        "That is not the account that uses this email address, or the username or password is incorrect, or the "
        "account is temporarily locked. Check them and try again in a moment.")]
    from authgate.stores.linked_identities import LinkedIdentityStore

    assert LinkedIdentityStore().get("demo", provider.issuer, "mallory") is None


@pytest.mark.slow
def test_linking_after_proving_the_password_signs_in_as_that_account(
        browser: Browser, provider: ScriptedProvider, invoke: Any) -> None:
    from authgate.stores.linked_identities import LinkedIdentityStore

    offer(provider)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    page = page_of(back_to_flow(browser, answer(browser, oidc_answer(provider, query, email="alice@demo.example",
                                                                     sub="alice-at-idp-a"))))
    result = post(browser, [*page.hidden().items(), ("username", "alice"), ("password", "alice-password")])
    assert claims_of(tokens_of(invoke, result)["access_token"])["sub"] == ALICE_ID
    link = LinkedIdentityStore().get("demo", provider.issuer, "alice-at-idp-a")
    assert link is not None and link.user_id == ALICE_ID
    # The next sign-in at the IdP needs no proof.
    fresh = Browser(browser.invoke)
    _onward, query = choose(fresh, sign_in_page(fresh), "idp-a")
    again = back_to_flow(fresh, answer(fresh, oidc_answer(provider, query, email="alice@demo.example",
                                                          sub="alice-at-idp-a")))
    assert claims_of(tokens_of(invoke, again)["access_token"])["sub"] == ALICE_ID


# ------------------------------------------------------------------ the callback's refusals


def test_a_state_the_sign_in_did_not_send_is_refused(browser: Browser, provider: ScriptedProvider) -> None:
    offer(provider)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    params = {**oidc_answer(provider, query), "state": "x" * 43}
    assert_error_page(answer(browser, params), "upstream_sign_in_failed", STARTED_ELSEWHERE)
    assert provider.token_requests() == []


def test_a_replayed_answer_is_refused(browser: Browser, provider: ScriptedProvider) -> None:
    offer(provider, create_users=True)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    params = oidc_answer(provider, query)
    assert page_of(answer(browser, params)).status == 200
    assert_error_page(answer(browser, params), "upstream_sign_in_failed", STARTED_ELSEWHERE)
    assert len(provider.token_requests()) == 1


def test_an_answer_in_another_browser_is_refused_before_the_code_is_redeemed(
        browser: Browser, provider: ScriptedProvider) -> None:
    """Login CSRF: an attacker's sign-in, its answer sent to a victim's browser."""
    offer(provider, create_users=True)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    victim = Browser(browser.invoke)
    assert_error_page(answer(victim, oidc_answer(provider, query)), "upstream_sign_in_failed", STARTED_ELSEWHERE)
    assert provider.token_requests() == []


def test_a_mix_up_answer_from_another_idp_is_refused(browser: Browser, provider: ScriptedProvider,
                                                    server: DocumentServer) -> None:
    """A request for IdP A answered by IdP B (RFC 9207): B's iss, and B's ID token, are refused."""
    other = ScriptedProvider(server, "idp-b", kid="op-key-b")
    offer(provider, create_users=True)
    offer(other, create_users=True)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    params = {**oidc_answer(other, query), "iss": other.issuer}
    assert_error_page(answer(browser, params), "upstream_sign_in_failed", REFUSED)
    assert provider.token_requests() == other.token_requests() == []
    # B's ID token from A's token endpoint (A's iss in the answer): its issuer and signature are not A's.
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    provider.answer_token(other.id_token(nonce=query["nonce"]))
    assert_error_page(answer(browser, {"code": "c", "state": query["state"], "iss": provider.issuer}),
                      "upstream_sign_in_failed", REFUSED)


def test_an_idp_that_says_the_person_cancelled_is_a_page(browser: Browser, provider: ScriptedProvider) -> None:
    offer(provider)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    result = answer(browser, {"error": "access_denied", "state": query["state"], "iss": provider.issuer})
    assert_error_page(result, "upstream_sign_in_failed", "The sign-in at your identity provider did not complete: "
                                                          "it was cancelled or refused there.")


def test_failed_answers_are_throttled_by_address(browser: Browser, provider: ScriptedProvider) -> None:
    from authgate.limits.auth_failures import AuthFailureGuard

    offer(provider)
    guard = AuthFailureGuard("upstream")
    for _ in range(min(policy.quota for policy in guard.policies.all())):
        answer(browser, {"state": "y" * 43, "code": "c"}, source_ip="203.0.113.9")
    result = answer(browser, {"state": "y" * 43, "code": "c"}, source_ip="203.0.113.9")
    assert result["statusCode"] == 429
    assert headers_of(result)["Content-Type"] == "text/html; charset=utf-8"


def test_an_idp_trusted_for_emails_links_a_verified_one_at_once(
        browser: Browser, provider: ScriptedProvider, invoke: Any) -> None:
    offer(provider, trust_email=True)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    result = back_to_flow(browser, answer(browser, oidc_answer(provider, query, email="alice@demo.example",
                                                               email_verified=True, sub="alice-verified")))
    assert claims_of(tokens_of(invoke, result)["access_token"])["sub"] == ALICE_ID


def test_an_idp_trusted_for_emails_still_asks_proof_of_an_unverified_one(
        browser: Browser, provider: ScriptedProvider) -> None:
    offer(provider, trust_email=True, create_users=True)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    page = page_of(back_to_flow(browser, answer(browser, oidc_answer(provider, query, email="alice@demo.example",
                                                                     email_verified=False, sub="mallory-2"))))
    assert page.text().startswith("Link your account"), page.text()


def test_a_link_whose_user_is_gone_is_removed_and_the_person_provisioned_anew(
        browser: Browser, provider: ScriptedProvider, invoke: Any) -> None:
    """A user deleted under a store that did not remove their links (an item written before links were removed
    with the user): the stale link never signs in as whoever holds the username now."""
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore

    offer(provider, create_users=True)
    _onward, query = choose(browser, sign_in_page(browser), "idp-a")
    first = claims_of(tokens_of(invoke, back_to_flow(browser, answer(browser, oidc_answer(provider, query)))
                                )["access_token"])["sub"]
    link = LinkedIdentityStore().get("demo", provider.issuer, "carol-upstream-1")
    assert link is not None
    UserStore().delete("demo", link.username)  # the user only: its link stays behind
    fresh = Browser(browser.invoke)
    _onward, query = choose(fresh, sign_in_page(fresh), "idp-a")
    again = claims_of(tokens_of(invoke, back_to_flow(fresh, answer(fresh, oidc_answer(provider, query)))
                                )["access_token"])["sub"]
    assert again != first
    relinked = LinkedIdentityStore().get("demo", provider.issuer, "carol-upstream-1")
    assert relinked is not None and relinked.user_id == again
