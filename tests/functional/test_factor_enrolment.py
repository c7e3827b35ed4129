"""A one-time code on the account page (issue 28 items 2, 3; docs/strong-authentication.md): set up with a QR code
and the key, confirmed by a first code, ten recovery codes shown once; removed with a right code only; the
sign-in then asks for it. A person who holds a factor confirms every change of factors with a code or one of their
passkeys (the software authenticator, tests/webauthn_authenticator.py, against an issuer on localhost)."""

from __future__ import annotations

import json
import re
from typing import Any

import pyotp
import pytest

from authgate.clock import ManualClock
from tests.functional.account_support import (
    ACCOUNT,
    CEREMONY_CSP,
    CSP,
    account_post,
    shown_secret,
    signed_in,
)
from tests.functional.authorize_support import PAGE_HEADERS, Browser, Message, Page, page_of
from tests.functional.passkey_support import answered, enrolled, options_of
from tests.functional.person_events_support import ALICE, Events, by_person, trail


def error(text: str) -> Message:
    return Message("alert", "message error", text)


def success(text: str) -> Message:
    return Message("status", "message success", text)


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
    assert wrong.messages == [error("The code is incorrect or was used already, or this account is temporarily "
                                    "locked.")]
    codes_page = account_post(browser, wrong, action="totp_confirm", code=totp.at(int(clock())))
    codes = re.findall(r"<li><code>([a-z2-7]{4}(?:-[a-z2-7]{4}){3})</code></li>", codes_page.body)
    assert len(codes) == 10 and len(set(codes)) == 10
    assert codes_page.text().startswith("Your recovery codes Your one-time code is set up.")
    assert codes_page.messages == [success("Your one-time code is set up. Keep these ten recovery codes somewhere "
                                           "safe: each signs you in once if you lose your authenticator app. They "
                                           "are shown only now.")]
    factors = UserFactorStore().factors("demo", "alice")
    assert factors is not None and (factors.totp, factors.recovery_codes_left) == (True, 10)

    account = page_of(browser.get_raw("", path=ACCOUNT))
    assert second_factor_text(account).startswith("A one-time code is set up; 10 recovery codes are left.")
    again = account_post(browser, account, action="totp_start")
    assert again.messages == [error("A one-time code is set up already: remove it before setting up another.")]
    # A password alone never removes it: a wrong code is refused, through the account's throttle.
    refused = account_post(browser, again, action="totp_remove", code="aaaa-bbbb-cccc-dddd")
    assert "The code is incorrect or was used already, or this account is temporarily locked." in refused.text()
    clock.advance(30)
    removed = account_post(browser, refused, action="totp_remove", code=totp.at(int(clock())))
    assert removed.messages == [success("The one-time code and its recovery codes were removed.")]
    assert UserFactorStore().factors("demo", "alice") == factors._replace(totp=False, recovery_codes_left=0)


def test_the_factor_forms_need_the_pages_sign_in(clock: ManualClock, browser: Browser) -> None:
    start = page_of(browser.get_raw("", path=ACCOUNT))
    browser.keep_cookies({"multiValueHeaders": {"Set-Cookie": [start.headers.get("Set-Cookie", "")]}})
    answer = account_post(browser, start, action="totp_start")
    assert "Your sign-in on this page has expired: sign in again." in answer.text()
    account = signed_in(browser)
    clock.advance(600)  # the page's sign-in lasts 10 minutes: a fresh password for every enrolment
    assert "Your sign-in on this page has expired" in account_post(browser, account, action="totp_start").text()


@pytest.mark.slow
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


@pytest.mark.slow
def test_an_ip_address_issuer_says_passkeys_need_a_host_name(clock: ManualClock, browser: Browser) -> None:
    account = signed_in(browser)
    # The passkeys section says so in place of its form; the page's next section follows it.
    assert ("Passkeys Passkeys need this service on a host name: browsers refuse an IP address as a passkey's "
            "relying party (a local stack: serve it as http://localhost). Apps you've allowed") in account.text()
    refused = account_post(browser, account, action="passkey_start", name="Key")
    assert "Passkeys need this service on a host name" in refused.text()


ASK = ("Confirm it is you first: enter a code from your authenticator app or a recovery code, or confirm with one "
       "of your passkeys.")
PASSKEY_REFUSED = ("Your passkey did not confirm it is you: it is not one of this account's, the page expired, or "
                   "your browser's answer did not verify. Try again.")


def confirm_with_passkey(browser: Browser, page: Page, **fields: str) -> Page:
    """Submit a change form with "Confirm with a passkey": the whole ceremony page that asks for the proof."""
    shown = account_post(browser, page, CEREMONY_CSP, prove="passkey", **fields)
    options = options_of(shown)
    assert (options["rpId"], options["userVerification"], options["timeout"]) == ("localhost", "required", 300000)
    assert shown.text() == ("Confirm it is you Before this change of your sign-in factors, confirm it is you with one "
                            "of your passkeys: your browser or device will ask you to unlock it (a fingerprint, your "
                            f"face or a PIN). {json.dumps(options)} Use a passkey Back to your account")
    carried = [(i["name"], i["type"]) for i in shown.inputs if i["name"] not in ("nonce", "csrf", "credential")]
    assert carried == [(name, "hidden") for name in ("action", "name", "credential_id") if name in fields]
    assert shown.hidden()["action"] == fields["action"]
    return shown


def post_answer(browser: Browser, fields: list[tuple[str, str]]) -> Page:
    result = browser.post(fields, path=ACCOUNT)
    browser.keep_cookies(result)
    answer = page_of(result)
    assert answer.status == 200
    assert {k: answer.headers[k] for k in PAGE_HEADERS} == PAGE_HEADERS
    assert answer.headers["Content-Security-Policy"] in (CSP, CEREMONY_CSP)
    return answer


def totp_state() -> tuple[bool, bool]:
    from authgate.stores.user_factors import UserFactorStore

    factors = UserFactorStore().factors("demo", "alice")
    return (factors.totp, factors.totp_pending) if factors is not None else (False, False)


@pytest.mark.slow
def test_a_password_alone_adds_no_factor_beside_a_passkey(clock: ManualClock, browser: Browser) -> None:
    """A person whose only factor is a passkey: a stolen password must not enrol the thief's one-time code."""
    import secrets

    from authgate.stores.passkeys import PasskeyStore
    from authgate.users import passkey_ceremonies
    from tests.webauthn_authenticator import SoftAuthenticator

    challenge = secrets.token_bytes(32)
    PasskeyStore().add(passkey_ceremonies.verify_registration(
        credential=SoftAuthenticator().register(challenge), challenge=challenge, rp_id="localhost",
        origin="http://localhost:3000", tenant_id="demo", username="alice", name="key", now=int(clock())))
    refused = account_post(browser, signed_in(browser), action="totp_start")
    assert ASK in refused.text()
    assert totp_state() == (False, False)


@pytest.mark.slow
@pytest.mark.usefixtures("localhost")
def test_alices_passkey_confirms_her_one_time_code(clock: ManualClock, browser: Browser) -> None:
    """Her only factor is a passkey: the page asks for it (only her passkeys, user verification required), and the
    answer confirms the set-up once."""
    device = enrolled(clock)
    account = signed_in(browser)
    assert second_factor_text(account) == ("No one-time code is set up. With one, signing in asks for a code from an "
                                           "authenticator app after the password. Set up a one-time code")
    # Every change of factors (set up a code, add a passkey, remove hers) is confirmed with a passkey.
    assert [(b.get("name"), b.get("value")) for b in account.buttons] == [(None, None), *[("prove", "passkey")] * 3]
    shown = confirm_with_passkey(browser, account, action="totp_start")
    options = options_of(shown)
    assert (options["rpId"], options["userVerification"], options["allowCredentials"]) == (
        "localhost", "required", [{"id": device.id, "type": "public-key"}])
    assert totp_state() == (False, False)
    answer = answered(shown, device)
    enrol = post_answer(browser, answer)
    assert enrol.text().startswith("Set up a one-time code Scan this QR code with an authenticator app")
    assert len(shown_secret(enrol)) == 32 and totp_state() == (False, True)
    # The challenge was spent: the same answer again changes nothing.
    again = post_answer(browser, answer)
    assert again.text().startswith("Your account Signed in as alice . " + PASSKEY_REFUSED)


@pytest.mark.slow
@pytest.mark.usefixtures("localhost")
def test_alices_passkeys_confirm_adding_and_removing_passkeys(clock: ManualClock, browser: Browser,
                                                              audit_events: Events) -> None:
    """Add a second passkey, remove the first, then the last (back to a password alone), each confirmed by one."""
    from authgate import base64url
    from authgate.stores.passkeys import PasskeyStore
    from tests.webauthn_authenticator import SoftAuthenticator

    first = enrolled(clock)
    clock.advance(1)  # listed oldest first
    account = signed_in(browser)
    assert "Passkeys key · created" in account.text()
    registration = post_answer(browser, answered(confirm_with_passkey(browser, account, action="passkey_start",
                                                                      name="Phone"), first))
    assert registration.text().startswith("Add a passkey Your browser or device will make a passkey named Phone")
    # Only the script's report of a failed ceremony, hidden until it has one: no empty box.
    assert registration.messages == [Message("alert", "message error", "", hidden=True)]
    second = SoftAuthenticator(origin="http://localhost:3000")
    options = options_of(registration)
    made = second.register(base64url.decode(options["challenge"]), user_handle=base64url.decode(options["user"]["id"]))
    added = post_answer(browser, [*((k, v) for k, v in registration.hidden().items() if k != "credential"),
                                  ("credential", json.dumps(made))])
    assert added.messages == [success("The passkey Phone was added: you can sign in with it.")]
    assert [p.name for p in PasskeyStore().of_user("demo", "alice")] == ["key", "Phone"]

    removal = confirm_with_passkey(browser, added, action="passkey_remove", credential_id=first.id)
    removed = post_answer(browser, answered(removal, second))
    assert removed.messages == [success("The passkey was removed.")]
    assert [p.name for p in PasskeyStore().of_user("demo", "alice")] == ["Phone"]
    last = post_answer(browser, answered(confirm_with_passkey(browser, removed, action="passkey_remove",
                                                              credential_id=second.id), second))
    assert "The passkey was removed." in last.text() and "No passkey is set up." in last.text()
    assert PasskeyStore().of_user("demo", "alice") == ()
    # Recorded for alice (the page's sign-in and its session first): the passkeys by their public ids, never a key.
    assert trail(audit_events)[2:] == [
        by_person("passkey.added", ALICE, "alice", name="Phone", aaguid="00010203-0405-0607-0809-0a0b0c0d0e0f",
                  passkey_id=second.id),
        by_person("passkey.removed", ALICE, "alice", passkey_id=first.id),
        by_person("passkey.removed", ALICE, "alice", passkey_id=second.id)]


@pytest.mark.slow
@pytest.mark.usefixtures("localhost")
def test_bob_with_a_code_and_a_passkey_removes_the_code_with_the_passkey(clock: ManualClock,
                                                                         browser: Browser) -> None:
    """Both factors: every change form takes a code, or "Confirm with a passkey instead"."""
    device = enrolled(clock, "demo", "bob")
    account = signed_in(browser, "bob")
    assert [(b.get("name"), b.get("value")) for b in account.buttons] == [(None, None), *[
        (None, None), ("prove", "passkey")] * 3]
    assert [i["id"] for i in account.inputs if i["name"] == "code"] == ["remove_code", "code_0", "code_new"]
    assert second_factor_text(account) == (
        "A one-time code is set up; 0 recovery codes are left. A code from your authenticator app, or a recovery "
        "code Remove the one-time code Confirm with a passkey instead")
    removed = post_answer(browser, answered(confirm_with_passkey(browser, account, action="totp_remove"), device))
    assert "The one-time code and its recovery codes were removed." in removed.text()
    from authgate.stores.user_factors import UserFactorStore

    factors = UserFactorStore().factors("demo", "bob")
    assert factors is not None and (factors.totp, factors.recovery_codes_left) == (False, 0)


@pytest.mark.slow
@pytest.mark.usefixtures("localhost")
@pytest.mark.parametrize("how", ["no proof", "bob's passkey", "no user verification", "a tampered signature",
                                 "a counter gone backwards", "a sign-in's challenge"])
def test_a_change_not_proven_by_alices_passkey_is_refused(clock: ManualClock, browser: Browser, how: str) -> None:
    from authgate.stores.passkeys import PasskeyStore
    from authgate.stores.webauthn_challenges import WebAuthnChallengeStore

    device = enrolled(clock)
    account = signed_in(browser)
    if how == "no proof":
        refused = account_post(browser, account, action="passkey_start", name="Thief's key")
        expected = ASK
    else:
        shown = confirm_with_passkey(browser, account, action="passkey_start", name="Thief's key")
        fields = answered(shown, device, verified=how != "no user verification", tamper=how == "a tampered signature")
        if how == "bob's passkey":
            fields = answered(shown, enrolled(clock, "demo", "bob"))
        elif how == "a counter gone backwards":
            stored = PasskeyStore().get(device.id)
            assert stored is not None
            PasskeyStore().used(stored, 7, False, int(clock()))
        elif how == "a sign-in's challenge":
            # A challenge of the second-factor step (purpose authenticate), same browser, same person.
            binding = next(c.split("=", 1)[1] for c in (browser.cookie or "").split("; ")
                           if c.startswith("authgate_binding="))
            issued = WebAuthnChallengeStore().issue("authenticate", binding, "demo", "alice")
            credential = device.assertion(issued)
            fields = [*((k, v) for k, v in fields if k != "credential"), ("credential", json.dumps(credential))]
        refused = post_answer(browser, fields)
        expected = PASSKEY_REFUSED
    assert refused.text().startswith(f"Your account Signed in as alice . {expected} Current password")
    assert [p.name for p in PasskeyStore().of_user("demo", "alice")] == ["key"]
    assert "Add a passkey Your browser" not in refused.text()


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
