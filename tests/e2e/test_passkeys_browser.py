"""Passkeys proven in a real browser (issue 28 item 6; docs/strong-authentication.md): headless Chromium with the
Chrome DevTools Protocol's virtual authenticator (CTAP2, internal transport, resident keys, user verification)
against `authgate serve --host localhost`. Alice enrols a passkey on the account page, signs out, signs in with
the passkey alone (no username, no password), and the client gets tokens with acr mfa and amr naming the
passkey (hwk or swk) and user verification (user). The pages run under their own CSP: none is violated."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pyotp
import pytest
import requests

from tests.e2e.chromium import watch
from tests.e2e.conftest import running_stack

pytestmark = [pytest.mark.e2e]

WEB_REDIRECT = "http://127.0.0.1:8765/callback"
ALICE = "usr_demoalice0000000000000"
# The CDP virtual authenticator (WebAuthn.addVirtualAuthenticator): a platform authenticator with a PIN or
# biometric that always verifies the user.
AUTHENTICATOR = {"protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
                 "isUserVerified": True}


# The stylesheet's colours of a message (http.pages.messages): a success is not drawn as an error.
SUCCESS_BACKGROUND = "rgb(230, 244, 234)"
_DRAWN_MESSAGES = """() => [...document.querySelectorAll(".message, [role=alert], [role=status]")]
  .filter((el) => el.getClientRects().length > 0)
  .map((el) => [el.getAttribute("role"), el.className, getComputedStyle(el).backgroundColor, el.innerText])"""


def drawn_messages(page: Any) -> list[tuple[str, str, str, str]]:
    """(role, class, background, text) of every message or announcement the page draws (not hidden)."""
    return [tuple(found) for found in page.evaluate(_DRAWN_MESSAGES)]


def claims_of(jwt: str) -> dict[str, Any]:
    payload = jwt.split(".")[1]
    return dict(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))))


def test_a_passkey_enrolled_on_the_account_page_signs_in_alone(tmp_path: Path, chromium_browser: Any) -> None:
    with running_stack(tmp_path, "--host", "localhost") as stack:
        base = stack.base_url
        context = chromium_browser.new_context()
        seen = watch(context)
        try:
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("WebAuthn.enable")
            authenticator = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})["authenticatorId"]

            # Enrol on the account page (its own password sign-in, fresh).
            page.goto(f"{base}/oauth/account")
            page.fill("#tenant", "demo")
            page.fill("#username", "alice")
            page.fill("#password", "alice-password")
            page.click("button:text-is('Sign in')")
            assert page.locator("text=No passkey is set up.").count() == 1
            # A one-time code first: from then on, every change of factors here takes a code as well.
            page.click("button:text-is('Set up a one-time code')")
            key = pyotp.TOTP(page.locator("code.totp-secret").inner_text().replace(" ", ""))
            page.fill("#code", key.now())
            page.click("button:text-is('Confirm')")
            recovery = page.locator("ul.recovery-codes li").all_inner_texts()
            assert len(recovery) == 10
            page.click("text=Back to your account")
            page.fill("#passkey_name", "Laptop key")
            page.fill("#code_new", "aaaa-bbbb-cccc-dddd")
            page.click("button:text-is('Add a passkey')")
            assert page.locator("text=The code is incorrect").count() == 1  # a password alone adds no passkey
            page.fill("#passkey_name", "Laptop key")
            page.fill("#code_new", recovery[0])
            page.click("button:text-is('Add a passkey')")
            page.wait_for_selector("button:text-is('Create the passkey')")
            assert drawn_messages(page) == []  # no empty box while nothing went wrong
            page.click("button:text-is('Create the passkey')")
            page.wait_for_selector("text=The passkey Laptop key was added: you can sign in with it.")
            assert drawn_messages(page) == [("status", "message success", SUCCESS_BACKGROUND,
                                             "The passkey Laptop key was added: you can sign in with it.")]
            listed = page.locator("ul.passkeys li").all_inner_texts()
            assert len(listed) == 1 and listed[0].startswith("Laptop key · created ") and "last used never" in listed[0]
            (credential,) = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
            assert credential["isResidentCredential"] is True

            # Sign out: no cookie of this browser remains (the page's sign-in, the binding, any session).
            context.clear_cookies()

            # Sign in with the passkey alone.
            verifier = secrets.token_urlsafe(48)
            challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
            page.goto(f"{base}/oauth/authorize?" + urlencode({
                "response_type": "code", "client_id": "demo-web", "redirect_uri": WEB_REDIRECT, "state": "pk-1",
                "scope": "openid charges:read", "nonce": "n-1", "code_challenge": challenge,
                "code_challenge_method": "S256"}))
            page.click("button:text-is('Approve with a passkey')")
            # The redirect to the client (no demo app listens: the request itself is what the client receives).
            with page.expect_request(lambda r: r.url.startswith(WEB_REDIRECT)) as landed:
                page.click("button:text-is('Use a passkey')")
            query = parse_qs(urlsplit(landed.value.url).query)
            assert (query["state"], query["iss"]) == (["pk-1"], [base])

            token = requests.post(f"{base}/oauth/token", auth=("demo-web", "demo-web-secret"), timeout=30, data={
                "grant_type": "authorization_code", "code": query["code"][0], "redirect_uri": WEB_REDIRECT,
                "code_verifier": verifier})
            assert token.status_code == 200, token.text
            identity = claims_of(token.json()["id_token"])
            access = claims_of(token.json()["access_token"])
            assert (identity["sub"], identity["acr"], access["acr"]) == (ALICE, "mfa", "mfa")
            assert {"user", "mfa"} <= set(identity["amr"]) and len({"hwk", "swk"} & set(identity["amr"])) == 1
            assert "pwd" not in identity["amr"]

            # The passkey as the second factor after a password, when the request asks for mfa.
            context.clear_cookies()
            verifier = secrets.token_urlsafe(48)
            challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
            page.goto(f"{base}/oauth/authorize?" + urlencode({
                "response_type": "code", "client_id": "demo-web", "redirect_uri": WEB_REDIRECT, "state": "pk-2",
                "scope": "openid charges:read", "nonce": "n-2", "code_challenge": challenge,
                "code_challenge_method": "S256", "acr_values": "mfa"}))
            page.fill("#username", "alice")
            page.fill("#password", "alice-password")
            page.click("button:text-is('Approve')")
            page.click("button:text-is('Use a passkey instead')")
            with page.expect_request(lambda r: r.url.startswith(WEB_REDIRECT)) as landed:
                page.click("button:text-is('Use a passkey')")
            query = parse_qs(urlsplit(landed.value.url).query)
            token = requests.post(f"{base}/oauth/token", auth=("demo-web", "demo-web-secret"), timeout=30, data={
                "grant_type": "authorization_code", "code": query["code"][0], "redirect_uri": WEB_REDIRECT,
                "code_verifier": verifier})
            second = claims_of(token.json()["id_token"])
            assert (second["acr"], query["state"]) == ("mfa", ["pk-2"])
            assert {"pwd", "user", "mfa"} <= set(second["amr"]) and len({"hwk", "swk"} & set(second["amr"])) == 1

            # Back on the account page: the sign-in session is at mfa and fresh, so the page opens without the
            # password; the passkey was used; removing it, confirmed with the passkey itself (no code), leaves none.
            page.goto(f"{base}/oauth/account")
            assert page.locator("#tenant").count() == 0 and page.locator("#password").count() == 0
            page.wait_for_selector("text=Signed in as alice")
            (listed,) = page.locator("ul.passkeys li").all_inner_texts()
            assert listed.startswith("Laptop key · created ") and "last used never" not in listed
            page.click("ul.passkeys button:text-is('Confirm with a passkey instead')")
            page.wait_for_selector("text=Before this change of your sign-in factors, confirm it is you")
            page.click("button:text-is('Use a passkey')")
            page.wait_for_selector("text=The passkey was removed.")
            assert page.locator("text=No passkey is set up.").count() == 1
            seen.assert_clean()
        finally:
            context.close()
