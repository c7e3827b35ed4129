"""The account page's own sign-in and the browser's sign-in session (docs/users.md, "The account page"): the page's
sign-in goes on the session, or opens one, and ends with it, so signing out ends the page at once."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.functional.account_support import ACCOUNT, account_post, signed_in
from tests.functional.authorize_support import Browser, Page, page_of
from tests.functional.logout_support import ALICE, logout

SIGN_IN_TEXT = ("Your account Sign in to manage your account. Organisation The short id your administrator gave you, "
                "such as acme ; leave it empty with a work email address, or for your usual organisation. Username or "
                "email Password Sign in")
EXPIRED = "Your sign-in on this page has expired: sign in again."
# Every test signs in with a password at scrypt's full cost.
pytestmark = pytest.mark.slow


def cookie_names(result: dict[str, Any]) -> list[str]:
    return [c.split("=", 1)[0] for c in (result.get("multiValueHeaders") or {}).get("Set-Cookie", [])]


def cookie_of(browser: Browser, name: str) -> str:
    return dict(part.split("=", 1) for part in (browser.cookie or "").split("; "))[name]


def account_page(browser: Browser) -> Page:
    page = page_of(browser.get_raw("", path=ACCOUNT))
    assert page.status == 200
    return page


def page_sign_in(browser: Browser, password: str = "alice-password") -> dict[str, Any]:
    """alice's password on the page's sign-in form: the whole result, its cookies kept."""
    start = account_page(browser)
    result = browser.post([*{k: v for k, v in start.hidden().items() if k in ("nonce", "csrf")}.items(),
                           ("action", "sign_in"), ("tenant", "demo"), ("username", "alice"), ("password", password)],
                          path=ACCOUNT)
    browser.keep_cookies(result)
    return result


def signed_out(browser: Browser) -> None:
    """RP-Initiated Logout without a hint: the confirmation page, then "Sign out" (the session's cookie cleared)."""
    confirm = page_of(logout(browser, []))
    done = logout(browser, [*confirm.hidden().items(), ("confirm", "yes")], method="POST")
    assert (done["statusCode"], cookie_names(done), cookie_of(browser, "authgate_session")) == (
        200, ["authgate_session"], "")


def test_signing_out_ends_the_account_pages_sign_in(clock: ManualClock, browser: Browser) -> None:
    """The review's case: alice signs in on the page and signs out; the next person on this browser finds the page
    asking for a sign-in, and the form alice left open sets up no one-time code for anyone."""
    from authgate.stores.user_factors import UserFactorStore

    account = signed_in(browser)
    assert account.text().startswith("Your account Signed in as alice . Current password")
    assert account_page(browser).text().startswith("Your account Signed in as alice .")
    signed_out(browser)
    assert account_page(browser).text() == SIGN_IN_TEXT
    refused = account_post(browser, account, action="totp_start")
    assert refused.text() == SIGN_IN_TEXT.replace("account. ", f"account. {EXPIRED} ", 1)
    factors = UserFactorStore().factors("demo", "alice")
    assert factors is not None and not factors.totp_pending


def test_the_pages_sign_in_opens_a_sign_in_session_and_holds_only_with_it(clock: ManualClock, browser: Browser,
                                                                          invoke: Any) -> None:
    from authgate.stores.sessions import SessionStore

    result = page_sign_in(browser)
    assert cookie_names(result) == ["authgate_session", "authgate_account"]
    session = SessionStore().live(cookie_of(browser, "authgate_session"))
    assert session is not None and (session.user_id, session.acr, session.amr, session.auth_time) == (
        ALICE, "password", ("pwd",), int(clock()))
    # The page's cookie alone, copied to a browser without that session, signs no one in.
    other = Browser(invoke)
    other.cookie = f"authgate_account={cookie_of(browser, 'authgate_account')}"
    assert account_page(other).text() == SIGN_IN_TEXT
    # Another person's session in this browser now: the page's sign-in was alice's session's, and ends too.
    bob, _ = SessionStore().create(tenant_id="demo", user_id="usr_demobob000000000000000", username="bob",
                                   acr="password", amr=("pwd",), generation=0)
    browser.cookie = (browser.cookie or "").replace(cookie_of(browser, "authgate_session"), bob)
    assert account_page(browser).text() == SIGN_IN_TEXT


def test_the_pages_sign_in_goes_on_the_persons_session_in_this_browser(clock: ManualClock, browser: Browser) -> None:
    """alice's session at mfa is too old to open the page alone: her password on the page goes on that session (no
    second one, no step down to password), and signing out of it ends the page."""
    from authgate.stores.sessions import SessionStore

    secret, _ = SessionStore().create(tenant_id="demo", user_id=ALICE, username="alice", acr="mfa",
                                            amr=("pwd", "otp", "mfa"), generation=0)
    browser.cookie = f"authgate_session={secret}"
    clock.advance(601)
    assert account_page(browser).text() == SIGN_IN_TEXT
    result = page_sign_in(browser)
    assert cookie_names(result) == ["authgate_account"]
    assert SessionStore().of_user("demo", ALICE) == [SessionStore().live(secret)]
    assert account_page(browser).text().startswith("Your account Signed in as alice .")
    signed_out(browser)
    assert account_page(browser).text() == SIGN_IN_TEXT


def test_a_temporary_password_opens_the_page_and_no_session(clock: ManualClock, browser: Browser) -> None:
    """After an operator's reset the password must be changed before anything else (docs/users.md): the temporary one
    opens no sign-in session that applications would take, only the page, for the change."""
    from authgate.stores.users import UserStore

    UserStore().reset_password("demo", "alice", "temporary-pass")
    clock.advance(1)
    result = page_sign_in(browser, "temporary-pass")
    assert cookie_names(result) == ["authgate_account"]
    assert account_page(browser).text().startswith("Your account Signed in as alice .")
    changed = account_post(browser, account_page(browser), action="change", current="temporary-pass",
                           new_password="alice-password-2", confirm="alice-password-2")
    assert changed.text().startswith("Password changed Your password has been changed.")
    assert account_page(browser).text() == SIGN_IN_TEXT
