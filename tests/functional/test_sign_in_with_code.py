"""The password and the second factor in one POST (issue 28's cost goal; docs/strong-authentication.md): a request
that needs mfa gets an optional one-time-code field beside the password; both are checked in one throttled attempt
and the session opens at mfa, with no step page and no rotation."""

from __future__ import annotations

from typing import Any

import pyotp
import pytest

from authgate.clock import ManualClock
from tests.demo import WEB_REDIRECT
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
    bob_code,
    factor_failures,
    wrong_code,
)
from tests.functional.token_support import TokenClient, body_of, claims_of

WRONG = ("The username, password or code is incorrect, or this account is temporarily locked after repeated "
         "failed attempts. Check them and try again in a moment.")
SIGN_IN_FIELDS = [("request_blob", "hidden"), ("csrf", "hidden"), ("username", "text"), ("password", "password")]
CODE_FIELD = {"id": "code", "name": "code", "type": "text", "inputmode": "text", "autocomplete": "one-time-code",
              "autocapitalize": "none", "spellcheck": "false", "maxlength": "64", "aria-describedby": "code-help"}
CODE_HELP = ("Code from your authenticator app (optional) This application asks for a second factor. Enter the code "
             "now, or one of your recovery codes; leave it empty to be asked after your password, or to use a "
             "passkey.")


def form(browser: Browser, **params: str) -> Page:
    return page_of(browser.get(web_params(**{**MFA, **params})))


def post(browser: Browser, page: Page, username: str, password: str, code: str) -> dict[str, Any]:
    fields = list(page.hidden().items()) + [("username", username), ("password", password), ("code", code),
                                            ("decision", "approve")]
    result = browser.post(fields)
    browser.keep_cookies(result)
    return result


def id_claims(tokens: TokenClient, result: dict[str, Any]) -> dict[str, Any]:
    assert result["statusCode"] == 303, result["body"][:400]
    redirect = redirect_of(result)
    assert (redirect.base, sorted(redirect.params)) == (WEB_REDIRECT, ["code", "iss", "state"])
    return claims_of(body_of(tokens.exchange(redirect.one("code")))["id_token"])


def failures(username: str = "bob") -> int:
    from authgate.stores.users import UserStore

    user = UserStore().get("demo", username)
    assert user is not None
    return user.failed_logins


def answer_of(result: dict[str, Any]) -> tuple[int, dict[str, str], str]:
    """What the browser gets: status, headers (but the request's own id) and body."""
    return result["statusCode"], {k: v for k, v in headers_of(result).items() if k != "x-request-id"}, result["body"]


def assert_wrong_page(result: dict[str, Any]) -> None:
    """The sign-in form again, with the one message, the code field kept and no cookie."""
    page = page_of(result)
    assert page.status == 200
    assert {k: page.headers[k] for k in PAGE_HEADERS} == PAGE_HEADERS
    assert "Set-Cookie" not in headers_of(result)
    assert [(i["name"], i["type"]) for i in page.inputs] == [*SIGN_IN_FIELDS, ("code", "text")]
    assert WRONG in page.text()


def test_the_form_of_a_request_needing_mfa_has_an_optional_code_field(clock: ManualClock, browser: Browser) -> None:
    plain = form(browser, acr_values="")
    assert [(i["name"], i["type"]) for i in plain.inputs] == SIGN_IN_FIELDS
    assert "one-time-code" not in plain.body and "authenticator app" not in plain.text()
    page = form(browser)
    assert page.status == 200 and {k: page.headers[k] for k in PAGE_HEADERS} == PAGE_HEADERS
    assert [(i["name"], i["type"]) for i in page.inputs] == [*SIGN_IN_FIELDS, ("code", "text")]
    assert page.inputs[-1] == CODE_FIELD  # no `required`: an empty code keeps the step after the password
    assert CODE_HELP in page.text()
    assert [(b["name"], b["value"]) for b in page.buttons] == [("decision", "approve"), ("decision", "deny")]
    # A tenant that requires mfa, without acr_values: the same field.
    from authgate.stores.tenants import TenantStore

    demo = TenantStore().get("demo")
    assert demo is not None
    TenantStore().put(demo._replace(require_mfa=True))
    required = form(browser, acr_values="")
    assert [(i["name"], i["type"]) for i in required.inputs] == [*SIGN_IN_FIELDS, ("code", "text")]


@pytest.mark.slow
def test_password_and_code_in_one_post_sign_in_at_mfa(clock: ManualClock, browser: Browser,
                                                       tokens: TokenClient) -> None:
    from authgate.stores.sessions import SessionStore

    result = post(browser, form(browser), "bob", "bob-password", bob_code(clock))
    cookies = result["multiValueHeaders"]["Set-Cookie"]
    assert len(cookies) == 1 and cookies[0].startswith("authgate_session=")
    assert cookies[0].endswith("; HttpOnly; SameSite=Lax; Path=/; Max-Age=43200")
    session = SessionStore().live(cookies[0].split(";", 1)[0].removeprefix("authgate_session="))
    assert session is not None and (session.acr, session.amr, session.auth_time) == (
        "mfa", ("otp", "pwd", "mfa"), int(clock()))
    claims = id_claims(tokens, result)
    assert (claims["sub"], claims["acr"], sorted(claims["amr"]), claims["auth_time"], claims["sid"]) == (
        BOB, "mfa", ["mfa", "otp", "pwd"], int(clock()), session.sid)
    assert failures() == 0


@pytest.mark.slow
def test_a_wrong_code_gets_the_same_page_as_a_wrong_password(clock: ManualClock, browser: Browser) -> None:
    page = form(browser)
    wrong_password = post(browser, page, "bob", "not-bobs-password", bob_code(clock))
    assert (failures(), factor_failures()) == (1, 0)  # the password's throttle counts a wrong password
    wrong = post(browser, page, "bob", "bob-password", wrong_code(clock))
    assert (failures(), factor_failures()) == (0, 1)  # the factor's a wrong code; the right password resets its own
    no_totp = post(browser, page, "alice", "alice-password", bob_code(clock))  # alice has no TOTP
    assert (failures("alice"), factor_failures("alice")) == (0, 1)
    assert_wrong_page(wrong)

    def seen(result: dict[str, Any]) -> tuple[int, dict[str, str], str]:
        status, headers, body = answer_of(result)
        return status, headers, body.replace('value="alice"', 'value="bob"')

    assert seen(wrong_password) == seen(wrong) == seen(no_totp)


@pytest.mark.slow
def test_a_code_is_accepted_once(clock: ManualClock, browser: Browser, tokens: TokenClient, invoke: Any) -> None:
    code = bob_code(clock)
    assert id_claims(tokens, post(browser, form(browser), "bob", "bob-password", code))["acr"] == "mfa"
    other = Browser(invoke)
    assert_wrong_page(post(other, form(other), "bob", "bob-password", code))  # RFC 6238 5.2: replay refused
    assert (failures(), factor_failures()) == (0, 1)
    clock.advance(30)
    assert post(other, form(other), "bob", "bob-password", bob_code(clock))["statusCode"] == 303


@pytest.mark.slow
def test_a_recovery_code_in_the_same_post_is_consumed_once(clock: ManualClock, browser: Browser,
                                                           tokens: TokenClient, invoke: Any) -> None:
    from authgate.stores.user_factors import UserFactorStore

    store = UserFactorStore()
    secret = store.start_totp("demo", "alice")
    codes = store.confirm_totp("demo", "alice", pyotp.TOTP(secret).at(int(clock())))
    assert codes is not None
    claims = id_claims(tokens, post(browser, form(browser), "alice", "alice-password", codes[0].upper()))
    assert (claims["sub"], claims["acr"], sorted(claims["amr"])) == (ALICE, "mfa", ["mfa", "otp", "pwd"])
    factors = store.factors("demo", "alice")
    assert factors is not None and factors.recovery_codes_left == 9
    other = Browser(invoke)
    assert_wrong_page(post(other, form(other, prompt="login"), "alice", "alice-password", codes[0]))
    assert post(other, form(other, prompt="login"), "alice", "alice-password", codes[1])["statusCode"] == 303


@pytest.mark.slow
def test_each_throttle_counts_its_own_credential(clock: ManualClock, browser: Browser) -> None:
    """Wrong passwords count toward the account's lock, wrong codes beside the right password toward the second
    factor's, and neither resets the other: a right password clears the password's count, never the codes'."""
    from authgate.stores.users import UserStore
    from authgate.users.factor_throttle import LOCK_AFTER, LOCK_SECONDS
    from authgate.users.model import delay_after

    page = form(browser)
    for failure in range(2 * LOCK_AFTER - 1):
        clock.advance(delay_after(failure) + 1)  # past each wait window of the password's throttle
        if failure % 2:
            assert_wrong_page(post(browser, page, "bob", "not-bobs-password", bob_code(clock)))
        else:
            assert_wrong_page(post(browser, page, "bob", "bob-password", wrong_code(clock)))
    clock.advance(301)  # the address's failure window has passed; the factor's lock (15 minutes) holds
    page = form(browser)
    right = post(browser, page, "bob", "bob-password", bob_code(clock))
    assert_wrong_page(right)
    # While it holds, nothing is checked: a wrong password gets the very same answer (no oracle of the password).
    wrong_password = post(browser, page, "bob", "not-bobs-password", bob_code(clock))
    assert answer_of(wrong_password) == answer_of(right)
    user = UserStore().get("demo", "bob")
    assert user is not None and (user.failed_logins, user.locked(int(clock())), factor_failures()) == (
        0, False, LOCK_AFTER)
    clock.advance(LOCK_SECONDS)
    assert post(browser, form(browser), "bob", "bob-password", bob_code(clock))["statusCode"] == 303


@pytest.mark.slow
def test_an_empty_code_keeps_the_step_after_the_password(clock: ManualClock, browser: Browser) -> None:
    result = post(browser, form(browser), "bob", "bob-password", "")
    step = page_of(result)
    assert step.status == 200
    assert [(i["name"], i["type"]) for i in step.inputs] == [
        ("request_blob", "hidden"), ("csrf", "hidden"), ("factor_ticket", "hidden"), ("code", "text")]
    assert step.text().startswith("Second factor To continue to Demo web app , confirm it is you.")
