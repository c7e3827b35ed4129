"""The second factor in the sign-in (issue 28 item 3; docs/strong-authentication.md): acr_values=mfa, an
essential acr, a tenant's require_mfa; TOTP and recovery codes through the authorization endpoint, replay and
lockout, the step-up of a fresh password session, forced enrolment, prompt=none and PAR."""

from __future__ import annotations

import json
from typing import Any

import pyotp
import pytest

from authgate.clock import ManualClock
from tests.demo import ISSUER, WEB_REDIRECT
from tests.functional.account_support import shown_secret
from tests.functional.authorize_support import (
    PAGE_HEADERS,
    Browser,
    Page,
    headers_of,
    page_of,
    redirect_of,
    web_params,
)
from tests.functional.second_factor_support import (
    ALICE,
    BOB,
    MFA,
    SCOPE,
    bob_code,
    factor_failures,
    give,
    password_session,
)
from tests.functional.token_support import TokenClient, body_of, claims_of, push, pushed_uri

WRONG = ("The code is incorrect or was used already, or this account is temporarily locked after repeated failed "
         "attempts. Check it and try again in a moment.")
STEP_FIELDS = [("request_blob", "hidden"), ("csrf", "hidden"), ("factor_ticket", "hidden"), ("code", "text")]


def password(browser: Browser, username: str = "bob", **params: str) -> dict[str, Any]:
    """The sign-in form of a request with `params`, submitted with the user's password; the cookies kept."""
    page = page_of(browser.get(web_params(**{**MFA, **params})))
    result = browser.submit(page, username=username, password=f"{username}-password")
    browser.keep_cookies(result)
    return result


def assert_step_page(page: Page, message: str = "") -> None:
    """The second-factor page: the whole of what the person sees, its fields, and the page headers."""
    assert page.status == 200
    assert {k: page.headers[k] for k in PAGE_HEADERS} == PAGE_HEADERS
    assert [(i["name"], i["type"]) for i in page.inputs] == STEP_FIELDS
    assert page.text() == " ".join(filter(None, [
        ("Second factor To continue to Demo web app , confirm it is you. Enter the six-digit code from your "
        "authenticator app, or one of your recovery codes."), message, "Code Continue"]))


def session_secret(browser: Browser) -> str:
    jar = dict(part.split("=", 1) for part in (browser.cookie or "").split("; "))
    return jar["authgate_session"]


def id_claims(tokens: TokenClient, result: dict[str, Any]) -> dict[str, Any]:
    assert result["statusCode"] == 303, result["body"][:400]
    redirect = redirect_of(result)
    assert (redirect.base, sorted(redirect.params)) == (WEB_REDIRECT, ["code", "iss", "state"])
    return claims_of(body_of(tokens.exchange(redirect.one("code")))["id_token"])


def enrolled_alice(clock: ManualClock) -> tuple[str, tuple[str, ...]]:
    """Alice enrolled in TOTP as the account page does it: (her secret, her ten recovery codes)."""
    from authgate.stores.user_factors import UserFactorStore

    store = UserFactorStore()
    secret = store.start_totp("demo", "alice")
    codes = store.confirm_totp("demo", "alice", pyotp.TOTP(secret).at(int(clock())))
    assert codes is not None
    return secret, codes


# ------------------------------------------------------------------ password, then the code


@pytest.mark.slow
def test_acr_values_mfa_asks_bob_for_a_code_after_his_password(clock: ManualClock, browser: Browser,
                                                                 tokens: TokenClient) -> None:
    from authgate.stores.sessions import SessionStore

    result = password(browser)
    step = page_of(result)
    assert_step_page(step)
    cookie = headers_of(result)["Set-Cookie"]
    assert cookie.startswith("authgate_session=") and cookie.endswith("; HttpOnly; SameSite=Lax; Path=/; Max-Age=43200")
    before = session_secret(browser)
    password_session = SessionStore().live(before)
    assert password_session is not None and (password_session.acr, password_session.amr) == ("password", ("pwd",))

    again = give(browser, step, "000000" if bob_code(clock) != "000000" else "111111")
    assert_step_page(page_of(again), WRONG)

    clock.advance(5)
    done = give(browser, step, bob_code(clock))
    claims = id_claims(tokens, done)
    now = int(clock())
    assert (claims["sub"], claims["acr"], sorted(claims["amr"]), claims["auth_time"]) == (
        BOB, "mfa", ["mfa", "otp", "pwd"], now)  # the password was fresh: auth_time is the step's time
    # The session has a new secret (session fixation) and the same sid; the old secret opens nothing.
    after = session_secret(browser)
    assert after != before and SessionStore().live(before) is None
    raised = SessionStore().live(after)
    assert raised is not None
    assert (raised.sid, raised.acr, raised.amr, raised.auth_time, raised.clients) == (
        password_session.sid, "mfa", ("otp", "pwd", "mfa"), now, ("demo-web",))
    assert claims["sid"] == raised.sid

    # The step is single use: its ticket was bound to the secret that is gone.
    replayed = page_of(browser.post(list(step.hidden().items()) + [("code", bob_code(clock))]))
    assert replayed.status == 200
    assert [i["name"] for i in replayed.inputs] == ["request_blob", "csrf", "username", "password", "code"]  # the request needs mfa
    assert "The second-factor step expired or was used already. Sign in again." in replayed.text()


@pytest.mark.slow
def test_a_code_used_once_is_refused_the_second_time(clock: ManualClock, browser: Browser, tokens: TokenClient,
                                                     invoke: Any) -> None:
    code = bob_code(clock)
    assert give(browser, page_of(password(browser)), code)["statusCode"] == 303
    other = Browser(invoke)
    step = page_of(password(other))
    assert_step_page(page_of(give(other, step, code)), WRONG)  # RFC 6238 5.2: not twice within its window


@pytest.mark.slow
def test_a_recovery_code_signs_in_once(clock: ManualClock, browser: Browser, tokens: TokenClient,
                                       invoke: Any) -> None:
    _secret, codes = enrolled_alice(clock)
    claims = id_claims(tokens, give(browser, page_of(password(browser, "alice")), codes[0].upper()))
    assert (claims["sub"], claims["acr"], sorted(claims["amr"])) == (ALICE, "mfa", ["mfa", "otp", "pwd"])
    other = Browser(invoke)
    assert_step_page(page_of(give(other, page_of(password(other, "alice")), codes[0])), WRONG)
    assert give(other, page_of(password(other, "alice", prompt="login")), codes[1])["statusCode"] == 303


@pytest.mark.slow
def test_wrong_codes_lock_the_second_factor_not_the_account(clock: ManualClock, browser: Browser) -> None:
    from authgate.stores.users import UserStore
    from authgate.users.factor_throttle import LOCK_AFTER

    step = page_of(password(browser))
    wrong = "000000" if bob_code(clock) != "000000" else "111111"
    for _ in range(LOCK_AFTER):
        assert_step_page(page_of(give(browser, step, wrong)), WRONG)
    clock.advance(60)  # past any wait window: what refuses now is the factor's lock
    assert_step_page(page_of(give(browser, step, bob_code(clock))), WRONG)  # locked: the right code too
    assert factor_failures() == LOCK_AFTER  # a refusal is not counted
    user = UserStore().get("demo", "bob")
    assert user is not None and (user.failed_logins, user.locked(int(clock()))) == (0, False)


# ------------------------------------------------------------------ a session asks only for what is missing


@pytest.mark.parametrize(("age", "fresh"), [(60, True), (1200, False)])
def test_a_password_session_asked_for_mfa_gets_only_the_code_step(clock: ManualClock, browser: Browser,
                                                                   tokens: TokenClient, age: int,
                                                                   fresh: bool) -> None:
    session = password_session(browser, age=age)
    assert browser.get(web_params(scope=SCOPE, nonce="n"))["statusCode"] == 302  # password is enough here
    step = page_of(browser.get(web_params(**MFA)))
    assert_step_page(step)
    claims = id_claims(tokens, give(browser, step, bob_code(clock)))
    # auth_time moves to the step only when the password was fresh (FRESH_PASSWORD, 300 s).
    assert (claims["acr"], claims["sid"], claims["auth_time"]) == (
        "mfa", session.sid, int(clock()) if fresh else int(clock()) - age)


def test_a_session_older_than_max_age_signs_in_again_in_full(clock: ManualClock, browser: Browser) -> None:
    password_session(browser, age=600)
    page = page_of(browser.get(web_params(**MFA, max_age="300")))
    assert [i["name"] for i in page.inputs] == ["request_blob", "csrf", "username", "password", "code"]  # the request needs mfa


def test_prompt_none_below_the_level_is_login_required(clock: ManualClock, browser: Browser) -> None:
    password_session(browser)
    result = browser.get(web_params(**MFA, prompt="none"))
    assert result["statusCode"] == 302
    assert redirect_of(result).params == {
        "error": ["login_required"], "state": ["xyz-state"], "iss": [ISSUER],
        "error_description": ["The user must sign in with a second factor, and prompt=none forbids asking them to."]}


# ------------------------------------------------------------------ no factor: voluntary, essential, required


@pytest.mark.slow
def test_voluntary_mfa_for_a_user_without_a_factor_is_issued_at_password(clock: ManualClock, browser: Browser,
                                                                         tokens: TokenClient) -> None:
    claims = id_claims(tokens, password(browser, "alice"))
    assert (claims["sub"], claims["acr"], claims["amr"]) == (ALICE, "password", ["pwd"])


@pytest.mark.slow
def test_essential_mfa_for_a_user_without_a_factor_is_unmet(clock: ManualClock, browser: Browser) -> None:
    essential = json.dumps({"id_token": {"acr": {"essential": True, "values": ["mfa"]}}})
    result = password(browser, "alice", acr_values="", claims=essential)
    assert result["statusCode"] == 303
    assert redirect_of(result).params == {
        "error": ["unmet_authentication_requirements"], "state": ["xyz-state"], "iss": [ISSUER],
        "error_description": [("This request needs a sign-in with a second factor (acr mfa), and this account has "
                              "none; set one up on the account page, or ask without an essential acr.")]}


@pytest.mark.slow
def test_a_tenant_that_requires_mfa_makes_alice_enrol_before_the_code(clock: ManualClock, browser: Browser,
                                                                        tokens: TokenClient) -> None:
    from authgate.stores.tenants import TenantStore
    from authgate.stores.user_factors import UserFactorStore

    tenants = TenantStore()
    demo = tenants.get("demo")
    assert demo is not None
    tenants.put(demo._replace(require_mfa=True))
    enrol = page_of(password(browser, "alice", acr_values=""))
    assert enrol.status == 200 and [(i["name"], i["type"]) for i in enrol.inputs] == STEP_FIELDS
    assert enrol.text().startswith("Set up a second factor To continue to Demo web app , confirm it is you. Your "
                                   "organisation requires a second factor. Scan this QR code with an authenticator "
                                   "app")
    secret = shown_secret(enrol)
    assert len(secret) == 32 and "<svg" in enrol.body and 'class="totp-secret"' in enrol.body
    # prompt=none cannot enrol anyone.
    assert redirect_of(browser.get(web_params(scope=SCOPE, nonce="n", prompt="none"))).params["error"] == [
        "interaction_required"]

    wrong = give(browser, enrol, "000000" if pyotp.TOTP(secret).now() != "000000" else "111111")
    assert shown_secret(page_of(wrong)) == secret and WRONG in page_of(wrong).text()
    codes_page = page_of(give(browser, enrol, pyotp.TOTP(secret).at(int(clock()))))
    assert codes_page.status == 200
    codes = [line for line in codes_page.text().split(" ") if line.count("-") == 3]
    assert len(codes) == 10
    assert codes_page.hidden().keys() == {"request_blob", "csrf", "decision"}
    factors = UserFactorStore().factors("demo", "alice")
    assert factors is not None and (factors.totp, factors.recovery_codes_left) == (True, 10)
    result = browser.post(list(codes_page.hidden().items()))
    claims = id_claims(tokens, result)
    assert (claims["sub"], claims["acr"], sorted(claims["amr"])) == (ALICE, "mfa", ["mfa", "otp", "pwd"])


@pytest.mark.slow
def test_a_pushed_request_carries_acr_values(clock: ManualClock, browser: Browser, tokens: TokenClient) -> None:
    request_uri = pushed_uri(push(tokens, web_params(**MFA)))
    page = page_of(browser.get([("client_id", "demo-web"), ("request_uri", request_uri)]))
    result = browser.submit(page, username="bob", password="bob-password")
    browser.keep_cookies(result)
    assert_step_page(page_of(result))


def test_an_ip_address_issuer_offers_no_passkey(clock: ManualClock, browser: Browser) -> None:
    """WebAuthn refuses IP addresses as relying-party ids: on http://127.0.0.1 the sign-in page has no passkey
    button, and a posted decision=passkey shows the sign-in form again (tests/e2e/test_passkeys_browser.py covers
    localhost)."""
    page = page_of(browser.get(web_params(**MFA)))
    assert [(b["name"], b["value"]) for b in page.buttons] == [("decision", "approve"), ("decision", "deny")]
    again = page_of(browser.post(list(page.hidden().items()) + [("decision", "passkey")]))
    assert again.status == 200
    assert [i["name"] for i in again.inputs] == ["request_blob", "csrf", "username", "password", "code"]  # the request needs mfa
    assert ("The passkey could not be used: it is not one of this organisation's, the page expired, or your "
            "browser's answer did not verify. Try again, or sign in with your password.") in again.text()
