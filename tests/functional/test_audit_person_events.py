"""The audit events of a person's own acts, through the authorize function (docs/audit.md, "What is recorded"): a
sign-in's outcome with its reason code, a lockout, a session started and ended, a consent, a factor, a passkey and
a password changed, a reset asked for and made. Each event whole (but its id, time and request id); nothing typed in
any of them."""

from __future__ import annotations

import json

import pytest

from authgate.clock import ManualClock
from tests.functional.account_support import ACCOUNT, account_post, shown_secret, signed_in
from tests.functional.authorize_support import Browser, page_of, web_params
from tests.functional.person_events_support import (
    ALICE,
    BOB,
    LOCAL,
    Events,
    by_person,
    sid_of,
    trail,
)

# Every test signs in with a password at scrypt's full cost.
pytestmark = pytest.mark.slow


def test_a_sign_in_for_a_client_opens_a_session_and_records_the_consent(browser: Browser, audit_events: Events) -> None:
    result = browser.submit(page_of(browser.get(web_params())))
    assert result["statusCode"] == 303
    signed, started, consented = trail(audit_events)
    assert signed == by_person("signin.succeeded", ALICE, "alice", method="password", acr="password", amr=["pwd"],
                               client_id="demo-web")
    assert sid_of(started, str(result["multiValueHeaders"]["Set-Cookie"])) == by_person("session.started", ALICE,
                                                                                      "alice")
    assert consented == by_person("consent.granted", ALICE, "alice", client_id="demo-web",
                                  scopes=["charges:read", "charges:write"])


def test_wrong_passwords_name_the_account_or_unknown_and_the_lockout(clock: ManualClock, browser: Browser,
                                                                    audit_events: Events) -> None:
    """The person signing in sees the same page for a wrong password and an unknown name; the trail says which, with
    the name as typed and never the password."""
    from authgate.users import model as users

    page = page_of(browser.get(web_params()))
    assert browser.submit(page, password="wrong-password-1")["statusCode"] == 200
    assert browser.submit(page, username="nobody", password="wrong-password-2")["statusCode"] == 200
    for failures in range(1, users.LOCK_AFTER):
        clock.advance(users.delay_after(failures) + 1)
        assert browser.submit(page, password="wrong-password-3")["statusCode"] == 200
    wrong = by_person("signin.failed", ALICE, "alice", "failure", "invalid", method="password")
    assert trail(audit_events) == [
        wrong, by_person("signin.failed", "unknown", "nobody", "failure", "invalid", method="password"),
        *[wrong] * (users.LOCK_AFTER - 1), by_person("account.locked", ALICE, "alice")]
    assert "wrong-password" not in json.dumps(audit_events())


def test_the_second_factor_step_records_a_wrong_code_and_the_raised_sign_in(clock: ManualClock, browser: Browser,
                                                                            audit_events: Events) -> None:
    from tests.functional.second_factor_support import MFA, bob_code, give, wrong_code

    result = browser.submit(page_of(browser.get(web_params(**MFA))), username="bob", password="bob-password")
    browser.keep_cookies(result)
    step = page_of(result)
    assert step.status == 200
    assert page_of(give(browser, step, wrong_code(clock))).status == 200
    clock.advance(5)
    assert give(browser, step, bob_code(clock))["statusCode"] == 303
    signed, started, *rest = trail(audit_events)
    assert signed == by_person("signin.succeeded", BOB, "bob", method="password", acr="password", amr=["pwd"],
                               client_id="demo-web")
    assert sid_of(started, browser.cookie) == by_person("session.started", BOB, "bob")
    assert rest == [
        by_person("signin.failed", BOB, "bob", "failure", "second_factor_failed", method="second_factor",
                  client_id="demo-web"),
        by_person("signin.succeeded", BOB, "bob", method="one_time_code", acr="mfa", amr=["otp", "pwd", "mfa"],
                  client_id="demo-web"),
        by_person("consent.granted", BOB, "bob", client_id="demo-web", scopes=["openid", "charges:read"])]


def test_the_account_pages_acts_are_recorded(clock: ManualClock, browser: Browser, audit_events: Events) -> None:
    import pyotp

    account = signed_in(browser)
    enrol = account_post(browser, account, action="totp_start")
    totp = pyotp.TOTP(shown_secret(enrol))
    assert account_post(browser, enrol, action="totp_confirm", code=totp.at(int(clock()))).status == 200
    clock.advance(30)
    removed = account_post(browser, page_of(browser.get_raw("", path=ACCOUNT)), action="totp_remove",
                           code=totp.at(int(clock())))
    changed = account_post(browser, removed, action="change", current="alice-password",
                           new_password="alice-new-password-1", confirm="alice-new-password-1")
    assert changed.text().startswith("Password changed")
    signed, started, *rest = trail(audit_events)
    assert signed == by_person("signin.succeeded", ALICE, "alice", method="password", acr="password", amr=["pwd"])
    assert sid_of(started, browser.cookie) == by_person("session.started", ALICE, "alice")
    assert rest == [by_person("factor.enrolled", ALICE, "alice", factor="totp"),
                    by_person("factor.removed", ALICE, "alice", factor="totp"),
                    by_person("password.changed", ALICE, "alice")]
    assert "alice-new-password-1" not in json.dumps(audit_events()) and totp.secret not in json.dumps(audit_events())


def test_a_sign_out_ends_the_session_and_the_grants_it_made(browser: Browser, audit_events: Events) -> None:
    from tests.functional.logout_support import logout

    result = browser.submit(page_of(browser.get(web_params())))
    browser.keep_cookies(result)
    confirm = page_of(logout(browser, [("client_id", "demo-web")]))
    done = logout(browser, [*confirm.hidden().items(), ("confirm", "yes")], method="POST")
    assert done["statusCode"] == 200
    signed, started, consented, revoked, ended = trail(audit_events)
    sid = started["details"]["sid"]
    assert ended == by_person("session.ended", ALICE, "alice", sid=sid, client_id="demo-web")
    assert revoked == {"tenant": "demo", "actor": {"type": "client", "id": "demo-web"}, "action": "token.revoked",
                       "target": {"type": "token", "id": revoked["target"]["id"]}, "outcome": "success",
                       "reason": "signed_out", **LOCAL, "details": {"kind": "grant", "client_id": "demo-web"}}
    assert [signed["action"], consented["action"]] == ["signin.succeeded", "consent.granted"]
