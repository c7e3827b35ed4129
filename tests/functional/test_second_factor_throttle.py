"""The second factor's own throttle at the authorization endpoint and on the account page (docs/strong-authentication.md,
"Wrong codes lock the factor"): wrong codes lock the factor whichever page counted them, no right password resets
their count, and the right code is refused while the lock holds and accepted once it ends. The device page and the
CIBA approval page: test_device_authorization.py, test_ciba_approval.py; the password form's code field:
test_sign_in_with_code.py."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.clock import ManualClock
from authgate.users.factor_throttle import LOCK_AFTER, LOCK_SECONDS
from tests.functional.account_support import ACCOUNT, account_post
from tests.functional.authorize_support import (
    PAGE_HEADERS,
    Browser,
    Page,
    page_of,
    redirect_of,
    web_params,
)
from tests.functional.second_factor_support import (
    BOB,
    MFA,
    bob_code,
    factor_failures,
    give,
    password_session,
    wrong_code,
)
from tests.functional.token_support import TokenClient, body_of, claims_of

WRONG = ("The code is incorrect or was used already, or this account is temporarily locked after repeated failed "
         "attempts. Check it and try again in a moment.")
PROOF_WRONG = "The code is incorrect or was used already, or this account is temporarily locked."
STEP_FIELDS = [("request_blob", "hidden"), ("csrf", "hidden"), ("factor_ticket", "hidden"), ("code", "text")]


def step_of(browser: Browser) -> Page:
    """The step a request that needs mfa shows bob's password session."""
    step = page_of(browser.get(web_params(**MFA)))
    assert step.status == 200 and [(i["name"], i["type"]) for i in step.inputs] == STEP_FIELDS
    return step


def after_password(browser: Browser) -> Page:
    """bob's password on the sign-in form (prompt=login: every time), the code field left empty: the step."""
    form = page_of(browser.get(web_params(**MFA, prompt="login")))
    result = browser.post(list(form.hidden().items()) + [("username", "bob"), ("password", "bob-password"),
                                                         ("code", ""), ("decision", "approve")])
    browser.keep_cookies(result)
    step = page_of(result)
    assert step.status == 200 and [(i["name"], i["type"]) for i in step.inputs] == STEP_FIELDS
    return step


def assert_refused(result: dict[str, Any]) -> None:
    """The step shown again with its one message (wrong, used, or locked alike), no cookie set."""
    page = page_of(result)
    assert (page.status, {k: page.headers[k] for k in PAGE_HEADERS}) == (200, PAGE_HEADERS)
    assert [(i["name"], i["type"]) for i in page.inputs] == STEP_FIELDS
    assert WRONG in page.text() and "Set-Cookie" not in result["multiValueHeaders"]


def assert_signed_in_at_mfa(tokens: TokenClient, result: dict[str, Any]) -> None:
    assert result["statusCode"] == 303, result["body"][:300]
    claims = claims_of(body_of(tokens.exchange(redirect_of(result).one("code")))["id_token"])
    assert (claims["sub"], claims["acr"], sorted(claims["amr"])) == (BOB, "mfa", ["mfa", "otp", "pwd"])


@pytest.mark.slow
def test_wrong_codes_between_right_password_sign_ins_lock_the_factor(clock: ManualClock, browser: Browser,
                                                                     tokens: TokenClient) -> None:
    """The review's reproduction: a right password before every wrong code reset the one count both shared, so bob
    never locked and his right code still worked. Now the factor locks at LOCK_AFTER wrong codes, whatever the
    passwords between; the password still signs him in, the right code is refused until the lock ends."""
    for _ in range(LOCK_AFTER + 3):
        assert_refused(give(browser, after_password(browser), wrong_code(clock)))
    assert_refused(give(browser, after_password(browser), bob_code(clock)))
    assert factor_failures() == LOCK_AFTER  # the codes refused by the lock were not checked, nor counted
    clock.advance(LOCK_SECONDS)
    assert_signed_in_at_mfa(tokens, give(browser, after_password(browser), bob_code(clock)))
    assert factor_failures() == 0


def test_the_lock_holds_its_fifteen_minutes_then_the_right_code_is_accepted(clock: ManualClock, browser: Browser,
                                                                            tokens: TokenClient) -> None:
    password_session(browser)
    step = step_of(browser)
    for _ in range(LOCK_AFTER):
        assert_refused(give(browser, step, wrong_code(clock)))
    clock.advance(60)  # past every wait window of the password's throttle: this is the factor's lock
    assert_refused(give(browser, step, bob_code(clock)))
    clock.advance(LOCK_SECONDS - 61)
    again = step_of(browser)  # the first step's five minutes are over
    assert_refused(give(browser, again, bob_code(clock)))  # its last second
    clock.advance(1)
    assert_signed_in_at_mfa(tokens, give(browser, again, bob_code(clock)))


def test_wrong_codes_on_the_account_page_and_in_the_step_count_toward_one_lock(clock: ManualClock, browser: Browser,
                                                                              invoke: Any) -> None:
    """The account page's proof (removing bob's code takes a code) and the sign-in's step count on the same throttle:
    three wrong codes on one and two on the other lock the factor on both."""
    from authgate.stores.sessions import SessionStore
    from authgate.stores.user_factors import UserFactorStore

    secret, _ = SessionStore().create(tenant_id="demo", user_id=BOB, username="bob", acr="mfa",
                                      amr=("pwd", "otp", "mfa"), generation=0)
    account = Browser(invoke)
    account.cookie = f"authgate_session={secret}"  # at mfa and fresh: the page opens without the password
    page = page_of(account.get_raw("", path=ACCOUNT))
    account.keep_cookies({"multiValueHeaders": {"Set-Cookie": [page.headers.get("Set-Cookie", "")]}})
    for _ in range(LOCK_AFTER - 2):
        assert PROOF_WRONG in account_post(account, page, action="totp_remove", code=wrong_code(clock)).text()
    password_session(browser)
    step = step_of(browser)
    for _ in range(2):
        assert_refused(give(browser, step, wrong_code(clock)))
    clock.advance(60)
    assert_refused(give(browser, step, bob_code(clock)))
    assert PROOF_WRONG in account_post(account, page, action="totp_remove", code=bob_code(clock)).text()
    factors = UserFactorStore().factors("demo", "bob")
    assert factors is not None and factors.totp
    assert factor_failures() == LOCK_AFTER
