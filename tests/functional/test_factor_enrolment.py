"""A one-time code on the account page (issue 28 items 2, 3; docs/strong-authentication.md): set up with a QR code
and the key, confirmed by a first code, ten recovery codes shown once; removed with a right code only; the
sign-in then asks for it."""

from __future__ import annotations

import re
from typing import Any

import pyotp
import pytest

from authgate.clock import ManualClock
from tests.functional.authorize_support import PAGE_HEADERS, Browser, Page, page_of

ACCOUNT = "/oauth/account"
CSP = ("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; "
       "base-uri 'none'")


def account_post(browser: Browser, page: Page, **fields: str) -> Page:
    """Submit a form of `page` (its CSRF fields) with `fields`; the whole page headers checked."""
    hidden = {k: v for k, v in page.hidden().items() if k in ("nonce", "csrf")}
    result = browser.post(list({**hidden, **fields}.items()), path=ACCOUNT)
    browser.keep_cookies(result)
    answer = page_of(result)
    assert answer.status == 200
    assert {k: answer.headers[k] for k in PAGE_HEADERS} == PAGE_HEADERS
    assert answer.headers["Content-Security-Policy"] == CSP
    return answer


def signed_in(browser: Browser, username: str = "alice") -> Page:
    start = page_of(browser.get_raw("", path=ACCOUNT))
    browser.keep_cookies({"multiValueHeaders": {"Set-Cookie": [start.headers.get("Set-Cookie", "")]}})
    return account_post(browser, start, action="sign_in", tenant="demo", username=username,
                        password=f"{username}-password")


def shown_secret(page: Page) -> str:
    found = re.search(r'<code class="totp-secret">([A-Z2-7 ]+)</code>', page.body)
    assert found is not None
    return found.group(1).replace(" ", "")


def second_factor_text(page: Page) -> str:
    return page.text().split("Second factor ", 1)[1].split(" Passkeys ", 1)[0]


@pytest.mark.slow
def test_alice_sets_up_a_one_time_code_and_removes_it(clock: ManualClock, browser: Browser) -> None:
    from authgate.stores.user_factors import UserFactorStore

    account = signed_in(browser)
    assert second_factor_text(account) == ("No one-time code is set up. With one, signing in asks for a code from an "
                                           "authenticator app after the password. Set up a one-time code")
    enrol = account_post(browser, account, action="totp_start")
    assert enrol.text().startswith("Set up a one-time code Scan this QR code with an authenticator app")
    secret = shown_secret(enrol)
    assert len(secret) == 32 and "<svg" in enrol.body
    totp = pyotp.TOTP(secret)

    wrong = account_post(browser, enrol, action="totp_confirm", code="000000" if totp.now() != "000000" else "1")
    assert wrong.text() == ("Set up a one-time code The code is incorrect or was used already, or this account is "
                            "temporarily locked. Enter the next code your app shows, or start again . Code Confirm")
    codes_page = account_post(browser, wrong, action="totp_confirm", code=totp.at(int(clock())))
    codes = re.findall(r"<li><code>([a-z2-7]{4}(?:-[a-z2-7]{4}){3})</code></li>", codes_page.body)
    assert len(codes) == 10 and len(set(codes)) == 10
    assert codes_page.text().startswith("Your recovery codes Your one-time code is set up.")
    factors = UserFactorStore().factors("demo", "alice")
    assert factors is not None and (factors.totp, factors.recovery_codes_left) == (True, 10)

    account = page_of(browser.get_raw("", path=ACCOUNT))
    assert second_factor_text(account).startswith("A one-time code is set up; 10 recovery codes are left.")
    again = account_post(browser, account, action="totp_start")
    assert "A one-time code is set up already: remove it before setting up another." in again.text()
    # A password alone never removes it: a wrong code is refused, through the account's throttle.
    refused = account_post(browser, again, action="totp_remove", code="aaaa-bbbb-cccc-dddd")
    assert "The code is incorrect or was used already, or this account is temporarily locked." in refused.text()
    clock.advance(30)
    removed = account_post(browser, refused, action="totp_remove", code=totp.at(int(clock())))
    assert "The one-time code and its recovery codes were removed." in removed.text()
    assert UserFactorStore().factors("demo", "alice") == factors._replace(totp=False, recovery_codes_left=0)


def test_the_factor_forms_need_the_pages_sign_in(clock: ManualClock, browser: Browser) -> None:
    start = page_of(browser.get_raw("", path=ACCOUNT))
    browser.keep_cookies({"multiValueHeaders": {"Set-Cookie": [start.headers.get("Set-Cookie", "")]}})
    answer = account_post(browser, start, action="totp_start")
    assert "Your sign-in on this page has expired: sign in again." in answer.text()
    account = signed_in(browser)
    clock.advance(600)  # the page's sign-in lasts 10 minutes: a fresh password for every enrolment
    assert "Your sign-in on this page has expired" in account_post(browser, account, action="totp_start").text()


def test_an_enrolment_on_the_account_page_is_asked_at_the_next_sign_in(clock: ManualClock, browser: Browser,
                                                                       invoke: Any) -> None:
    from tests.functional.authorize_support import web_params

    account = signed_in(browser)
    secret = shown_secret(account_post(browser, account, action="totp_start"))
    account_post(browser, account, action="totp_confirm", code=pyotp.TOTP(secret).at(int(clock())))
    other = Browser(invoke)
    page = page_of(other.get(web_params(scope="openid charges:read", nonce="n", acr_values="mfa")))
    step = page_of(other.submit(page))
    assert [i["name"] for i in step.inputs] == ["request_blob", "csrf", "factor_ticket", "code"]


def test_an_ip_address_issuer_says_passkeys_need_a_host_name(clock: ManualClock, browser: Browser) -> None:
    account = signed_in(browser)
    assert account.text().endswith(
        "Passkeys Passkeys need this service on a host name: browsers refuse an IP address as a passkey's relying "
        "party (a local stack: serve it as http://localhost).")
    refused = account_post(browser, account, action="passkey_start", name="Key")
    assert "Passkeys need this service on a host name" in refused.text()


def test_a_password_alone_adds_no_factor_beside_a_passkey(clock: ManualClock, browser: Browser) -> None:
    """A person whose only factor is a passkey: a stolen password must not enrol the thief's one-time code."""
    import secrets

    from authgate.stores.passkeys import PasskeyStore
    from authgate.stores.user_factors import UserFactorStore
    from authgate.users import passkey_ceremonies
    from tests.webauthn_authenticator import SoftAuthenticator

    challenge = secrets.token_bytes(32)
    PasskeyStore().add(passkey_ceremonies.verify_registration(
        credential=SoftAuthenticator().register(challenge), challenge=challenge, rp_id="localhost",
        origin="http://localhost:3000", tenant_id="demo", username="alice", name="key", now=int(clock())))
    refused = account_post(browser, signed_in(browser), action="totp_start")
    assert ("Your only second factor is a passkey, and this page cannot ask for one yet: ask your administrator to "
            "reset your second factors (authgate users reset-mfa) to set up others.") in refused.text()
    factors = UserFactorStore().factors("demo", "alice")
    assert factors is not None and (factors.totp, factors.totp_pending) == (False, False)


@pytest.mark.parametrize(("acr", "age", "opens"), [("mfa", 600, True), ("mfa", 601, False), ("password", 0, False)])
def test_a_fresh_mfa_session_opens_the_account_page_without_the_password(clock: ManualClock, browser: Browser,
                                                                         acr: str, age: int, opens: bool) -> None:
    """A sign-in session at mfa whose sign-in is at most 10 minutes old opens the page (docs/users.md); an older
    one, or one at password, gets the page's own sign-in form."""
    from authgate.stores.sessions import SessionStore
    from authgate.stores.users import UserStore

    bob = UserStore().get("demo", "bob")
    assert bob is not None
    secret, _session = SessionStore().create(tenant_id="demo", user_id=bob.user_id, username="bob", acr=acr,
                                             amr=("mfa", "otp", "pwd") if acr == "mfa" else ("pwd",),
                                             generation=bob.session_generation)
    clock.advance(age)
    browser.cookie = f"authgate_session={secret}"
    shown = page_of(browser.get_raw("", path=ACCOUNT))
    assert shown.status == 200 and shown.headers["Content-Security-Policy"] == CSP
    if opens:
        assert shown.text().startswith("Your account Signed in as bob .")
        assert "authgate_account=" not in shown.headers.get("Set-Cookie", "")
    else:
        assert shown.text().startswith("Your account Sign in to manage your account.")
