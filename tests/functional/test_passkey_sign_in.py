"""Signing in with a passkey at the authorization endpoint, in-process (issue 28 item 1; docs/strong-authentication.md):
a software authenticator (tests/webauthn_authenticator.py) against an issuer on http://localhost:3000. The real
browser's proof is tests/e2e/test_passkeys_browser.py; this pins the refusals."""

from __future__ import annotations

import json
from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.functional.authorize_support import (
    Browser,
    Page,
    headers_of,
    page_of,
    redirect_of,
    web_params,
)
from tests.functional.openid_support import id_token_of
from tests.functional.passkey_support import ISSUER, answered, enrolled, options_of
from tests.functional.person_events_support import Events, by_person, trail
from tests.functional.token_support import TokenClient, body_of, claims_of
from tests.webauthn_authenticator import SoftAuthenticator

ALICE = "usr_demoalice0000000000000"
BOB = "usr_demobob000000000000000"
HINT_MISMATCH = "The person who signed in is not the one the id_token_hint names."
# An error redirect's headers beside its Location and x-request-id: no cookie is set.
REDIRECT_HEADERS = {"Cache-Control": "no-store", "Pragma": "no-cache"}
REFUSED = ("The passkey could not be used: it is not one of this organisation's, the page expired, or your browser's "
           "answer did not verify. Try again, or sign in with your password.")


def ceremony(browser: Browser, **params: str) -> Page:
    page = page_of(browser.get(web_params(scope="openid charges:read", nonce="n", **params)))
    assert [(b["name"], b["value"]) for b in page.buttons] == [
        ("decision", "approve"), ("decision", "deny"), ("decision", "passkey")]
    shown = page_of(browser.post(list(page.hidden().items()) + [("decision", "passkey")]))
    assert shown.status == 200
    assert shown.headers["Content-Security-Policy"].startswith("default-src 'none'; script-src 'self'; ")
    assert [(i["name"], i["type"]) for i in shown.inputs] == [
        ("request_blob", "hidden"), ("csrf", "hidden"), ("decision", "hidden"), ("credential", "hidden")]
    return shown


def answer(browser: Browser, shown: Page, device: SoftAuthenticator, **kwargs: Any) -> dict[str, Any]:
    options = options_of(shown)
    assert (options["rpId"], options["userVerification"], options.get("allowCredentials", [])) == (
        "localhost", "required", [])
    return browser.post(answered(shown, device, **kwargs))


@pytest.mark.usefixtures("localhost")
def test_a_passkey_alone_signs_alice_in_at_mfa(clock: ManualClock, browser: Browser, tokens: TokenClient,
                                               audit_events: Events) -> None:
    device = enrolled(clock)
    shown = ceremony(browser)
    result = answer(browser, shown, device)
    assert result["statusCode"] == 303
    redirect = redirect_of(result)
    assert (redirect.base, redirect.one("iss"), redirect.one("state")) == (
        "http://127.0.0.1:8765/callback", ISSUER, "xyz-state")
    claims = claims_of(body_of(tokens.exchange(redirect.one("code")))["id_token"])
    assert (claims["sub"], claims["acr"], claims["amr"], claims["auth_time"]) == (
        ALICE, "mfa", ["hwk", "user", "mfa"], int(clock()))
    # The challenge was spent: the same answer again is refused, on the sign-in form.
    again = page_of(browser.post([*{k: v for k, v in shown.hidden().items() if k != "credential"}.items(),
                                  ("credential", json.dumps(device.assertion(b"x" * 32)))]))
    assert REFUSED in again.text()
    signed, opened, consented, issued, refused = trail(audit_events)
    assert signed == by_person("signin.succeeded", ALICE, "alice", method="passkey", acr="mfa",
                               amr=["hwk", "user", "mfa"], client_id="demo-web")
    assert [opened["action"], consented["action"], issued["action"]] == ["session.started", "consent.granted",
                                                                         "token.issued"]
    assert refused == by_person("signin.failed", "unknown", None, "failure", "invalid", method="passkey",
                                client_id="demo-web")


@pytest.mark.usefixtures("localhost")
def test_alices_passkey_under_bobs_id_token_hint_is_login_required(clock: ManualClock, browser: Browser) -> None:
    """OIDC Core 3.1.2.1, as after a password (docs/oidc.md): the hint names bob, and alice's passkey signs her in on
    the form it showed. No code and no session for her: an error redirect, login_required."""
    from authgate.stores.sessions import SessionStore

    device = enrolled(clock)
    result = answer(browser, ceremony(browser, id_token_hint=id_token_of(BOB, issuer=ISSUER)), device)
    redirect = redirect_of(result)
    assert (result["statusCode"], redirect.base, redirect.params) == (303, "http://127.0.0.1:8765/callback", {
        "error": ["login_required"], "error_description": [HINT_MISMATCH], "state": ["xyz-state"], "iss": [ISSUER]})
    assert {k: v for k, v in headers_of(result).items() if k not in ("x-request-id", "Location")} == REDIRECT_HEADERS
    assert SessionStore().of_user("demo", ALICE) == []
    # Under a hint that names her, the same passkey signs her in.
    result = answer(browser, ceremony(browser, id_token_hint=id_token_of(ALICE, issuer=ISSUER)), device)
    assert sorted(redirect_of(result).params) == ["code", "iss", "state"]


@pytest.mark.usefixtures("localhost")
@pytest.mark.parametrize("how", ["no user verification", "another tenant's passkey", "a tampered signature",
                                 "not JSON"])
def test_a_passkey_that_does_not_hold_is_refused_on_the_sign_in_form(clock: ManualClock, browser: Browser,
                                                                     how: str) -> None:
    from authgate.stores.users import UserStore

    if how == "another tenant's passkey":
        UserStore().create("other", "olga", "olga-password-1")
        device = enrolled(clock, "other", "olga")
    else:
        device = enrolled(clock)
    shown = ceremony(browser)
    if how == "not JSON":
        fields = {k: v for k, v in shown.hidden().items() if k != "credential"}
        result = browser.post([*fields.items(), ("credential", "{not json")])
    else:
        result = answer(browser, shown, device, verified=how != "no user verification",
                        tamper=how == "a tampered signature")
    page = page_of(result)
    assert page.status == 200
    assert [i["name"] for i in page.inputs] == ["request_blob", "csrf", "username", "password"]
    assert REFUSED in page.text()


@pytest.mark.slow
@pytest.mark.usefixtures("localhost")
def test_a_passkey_signs_in_past_an_operators_reset_and_the_password_stays_forced(
        clock: ManualClock, browser: Browser, tokens: TokenClient) -> None:
    """docs/users.md: the reset replaced the password; a passkey never used it, so it signs in (acr mfa), and the
    temporary password still leads only to the change form."""
    from authgate.stores.users import UserStore

    device = enrolled(clock)
    UserStore().reset_password("demo", "alice", "temporary-pass")
    result = answer(browser, ceremony(browser), device)
    assert result["statusCode"] == 303, result["body"][:300]
    claims = claims_of(body_of(tokens.exchange(redirect_of(result).one("code")))["id_token"])
    assert (claims["sub"], claims["acr"], claims["amr"]) == (ALICE, "mfa", ["hwk", "user", "mfa"])
    user = UserStore().get("demo", "alice")
    assert user is not None and user.must_change_password
    # The temporary password, in a browser without that session: the forced change, no code.
    other = Browser(browser.invoke)
    form = page_of(other.get(web_params(scope="openid charges:read", nonce="n", prompt="login")))
    change = page_of(other.submit(form, username="alice", password="temporary-pass"))
    assert change.status == 200
    assert [i["name"] for i in change.inputs] == ["request_blob", "csrf", "change_ticket", "decision", "new_password", "confirm"]
