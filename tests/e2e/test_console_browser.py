"""The operators' console in headless Chromium (docs/console.md): olivia signs in with her password and code, finds
bob and sees his page, disables him (his refresh token and his next sign-in are refused) and enables him, and signs
out; a sign-in ends at max_age; a role taken away counts at the next page.

Every page is checked by axe-core (npm, tests/e2e/js): no serious or critical violation; and by the CSP watch (no
violation reported). Screenshots of each page go to test-artifacts/console-*.png.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.e2e.admin_commands import admin
from tests.e2e.chromium import screenshot, watch
from tests.e2e.conftest import LocalStack, running_stack
from tests.e2e.console_browser_support import accessible, olivia_code, sign_in_as_olivia
from tests.e2e.flows import Flows, pkce_pair

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

# The console's max_age on the stack of the expiry test (AUTHGATE_CONSOLE_MAX_AGE, the template's
# ConsoleMaxAgeSeconds on a stage), in seconds.
SHORT_MAX_AGE = 12
# The CDP virtual authenticator (WebAuthn.addVirtualAuthenticator): a platform authenticator that verifies the user.
AUTHENTICATOR = {"protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
                 "isUserVerified": True}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    """A stack of its own: olivia's code is single-use per 30-second step, and the role test changes her roles."""
    with running_stack(tmp_path_factory.mktemp("authgate-console")) as running:
        yield running


def test_olivia_signs_in_finds_bob_disables_and_enables_him_and_signs_out(stack: LocalStack, context: Any) -> None:
    seen = watch(context)
    page = context.new_page()
    sign_in_as_olivia(page, stack)
    assert page.title() == "Console · authgate console"
    assert "Signed in as olivia (owner)" in page.inner_text("header")
    assert "You are olivia (Olivia Operator), with the roles owner." in page.inner_text("main")
    assert [c["name"] for c in context.cookies()].count("authgate_console") == 1
    assert page.evaluate("() => [localStorage.length, sessionStorage.length, document.cookie]") == [0, 0, ""]
    accessible(page, "home")

    page.click("nav >> text=People")
    page.select_option("#tenant", "demo")
    page.fill("#q", "bob")
    page.click("button:text-is('Find')")
    page.wait_for_url(f"{stack.base_url}/console/people?tenant=demo&q=bob")
    assert page.locator("table tbody tr").all_inner_texts() == ["bob\tBob Example\tbob@demo.example\tactive"]
    accessible(page, "people")

    page.click("table a:text-is('bob')")
    page.wait_for_url(f"{stack.base_url}/console/person?tenant=demo&username=bob")
    assert page.locator("h1").inner_text() == "bob (demo)"
    assert page.locator("main h2").all_inner_texts() == ["Profile", "Actions", "Sign-in sessions", "Second factors",
                                                         "Linked identities", "Consents"]
    profile = page.inner_text("main section >> nth=0")
    assert "Username\nbob" in profile and "Email\nbob@demo.example (verified)" in profile, profile
    assert "One-time code\nset up" in page.inner_text("main"), page.inner_text("main")
    accessible(page, "person")
    page.set_viewport_size({"width": 375, "height": 800})  # phone width: nothing wider than the screen
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, "console-person-phone")
    page.set_viewport_size({"width": 1280, "height": 800})

    flows = Flows(stack.base_url)
    try:
        code, verifier = flows.authorize(username="bob", password="bob-password")
        tokens = flows.exchange(code, verifier).json()
        page.reload()  # bob's sign-in is on his page: when, how, which application
        sessions = page.inner_text("main section >> nth=2")
        assert sessions.startswith("Sign-in sessions\n1 live sign-in session") and "demo-web" in sessions, sessions
        page.click("main a:text-is('Disable')")
        page.wait_for_url(f"{stack.base_url}/console/act?tenant=demo&username=bob&action=disable")
        assert page.inner_text("main") == ("Disable: bob (demo)?\n\nbob can no longer sign in; their sessions and "
                                           "refresh tokens end now.\n\nDisable\nCancel")
        accessible(page, "confirm-disable")
        page.click("main button:text-is('Disable')")
        assert page.locator("main [role=status]").inner_text() == (
            "Done: user bob disabled (its sessions and refresh tokens end now) in tenant demo.")
        accessible(page, "done-disable")
        refused = flows.refresh(tokens["refresh_token"])
        assert (refused.status_code, refused.json()["error"]) == (400, "invalid_grant")
        signing_in = flows.submit_login(flows.login_page(challenge=pkce_pair()[1]), username="bob",
                                        password="bob-password")
        assert signing_in.status_code == 200 and "The username or password is incorrect" in signing_in.text

        page.click("text=Back to bob")
        assert "State\ndisabled" in page.inner_text("main section >> nth=0")
        page.click("main a:text-is('Enable')")
        page.click("main button:text-is('Enable')")
        assert page.locator("main [role=status]").inner_text() == "Done: user bob enabled in tenant demo."
        again, verifier = flows.authorize(username="bob", password="bob-password")
        assert flows.exchange(again, verifier).status_code == 200
        assert flows.refresh(tokens["refresh_token"]).status_code == 400  # enabling brings no old token back
    finally:
        flows.close()

    page.click("button:text-is('Sign out')")
    page.wait_for_url(f"{stack.base_url}/console/signed-out")
    assert page.inner_text("main") == "Signed out\n\nYou have signed out of the console.\n\nSign in again"
    assert "authgate_console" not in [c["name"] for c in context.cookies()]
    accessible(page, "signed-out")
    # The session is over here and at the stack: the console sends the browser to sign in, and the stack asks for
    # the password again.
    page.goto(f"{stack.base_url}/console/person?tenant=demo&username=bob")
    page.wait_for_url(f"{stack.base_url}/oauth/authorize?*")
    assert page.locator("#password").count() == 1
    seen.assert_clean()


def test_a_role_taken_away_counts_at_the_next_page_whatever_the_url(stack: LocalStack, context: Any) -> None:
    """olivia, support of acme only from now on, cannot see demo's people, even by typing the URL: a 403 page; made
    an auditor, she reads and changes nothing."""
    time.sleep(30 - time.time() % 30 + 1)  # a new TOTP step: the first test spent this one's code
    seen = watch(context)
    page = context.new_page()
    sign_in_as_olivia(page, stack, "/console/person?tenant=demo&username=bob")
    try:
        granted = admin(stack, "operators", "grant", "--username", "olivia", "--role", "support", "--tenant", "acme")
        assert granted.returncode == 0, granted.stderr
        revoked = admin(stack, "operators", "revoke", "--username", "olivia", "--role", "owner")
        assert revoked.returncode == 0, revoked.stderr
        response = page.goto(f"{stack.base_url}/console/person?tenant=demo&username=bob")
        assert response is not None and response.status == 403
        assert page.locator("h1").inner_text() == "Not allowed for your role"
        assert page.locator("main > p").first.inner_text() == (
            "Your roles (support (acme)) do not allow this in tenant demo.")
        assert "bob@demo.example" not in page.content()
        accessible(page, "forbidden")
        response = page.goto(f"{stack.base_url}/console/people?tenant=demo&q=bob")
        assert response is not None and response.status == 403
        response = page.goto(f"{stack.base_url}/console/people")
        assert response is not None and response.status == 200
        assert page.locator("#tenant option").all_inner_texts() == ["acme"]

        # An auditor reads bob's page and changes nothing: no action is offered, and typed, it is the 403 page.
        assert admin(stack, "operators", "grant", "--username", "olivia", "--role", "auditor").returncode == 0
        assert admin(stack, "operators", "revoke", "--username", "olivia", "--role", "support").returncode == 0
        response = page.goto(f"{stack.base_url}/console/person?tenant=demo&username=bob")
        assert response is not None and response.status == 200
        assert "Actions" not in page.locator("main h2").all_inner_texts()
        response = page.goto(f"{stack.base_url}/console/act?tenant=demo&username=bob&action=disable")
        assert response is not None and response.status == 403
        assert page.locator("main > p").first.inner_text() == "Your roles (auditor) do not allow this in tenant demo."
    finally:
        admin(stack, "operators", "grant", "--username", "olivia", "--role", "owner")
        for role in ("support", "auditor"):
            admin(stack, "operators", "revoke", "--username", "olivia", "--role", role)
    seen.assert_clean()


def test_a_sign_in_serves_the_console_until_max_age(tmp_path: Path, context: Any) -> None:
    with running_stack(tmp_path, env_extra={"AUTHGATE_CONSOLE_MAX_AGE": str(SHORT_MAX_AGE)}) as short:
        page = context.new_page()
        sign_in_as_olivia(page, short)
        signed_in = time.monotonic()
        assert "Signed in as olivia (owner)" in page.inner_text("header")
        (cookie,) = [c for c in context.cookies() if c["name"] == "authgate_console"]
        time.sleep(max(0.0, SHORT_MAX_AGE + 1 - (time.monotonic() - signed_in)))
        # The browser dropped the cookie (its Max-Age was the session's end); the server holds it over too.
        assert "authgate_console" not in [c["name"] for c in context.cookies()]
        replayed = requests.get(f"{short.base_url}/console/people", allow_redirects=False, timeout=10,
                                headers={"Cookie": f"authgate_console={cookie['value']}"})
        assert replayed.status_code == 302 and replayed.text == ""
        assert replayed.headers["Location"].startswith(f"{short.base_url}/oauth/authorize?")
        assert f"max_age={SHORT_MAX_AGE}&" in replayed.headers["Location"] or \
            replayed.headers["Location"].endswith(f"max_age={SHORT_MAX_AGE}")
        # At the authorization endpoint the sign-in is older than max_age: the password is asked again.
        page.goto(f"{short.base_url}/console/people")
        page.wait_for_url(f"{short.base_url}/oauth/authorize?*")
        assert page.locator("#password").count() == 1


def test_olivia_signs_in_to_the_console_with_a_passkey(tmp_path: Path, chromium_browser: Any) -> None:
    """The CDP virtual authenticator (WebAuthn needs a host name: `authgate serve --host localhost`): olivia adds a
    passkey on the account page, then signs in to the console with it alone; the console asked for acr mfa."""
    with running_stack(tmp_path, "--host", "localhost") as local:
        context = chromium_browser.new_context()
        seen = watch(context)
        try:
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("WebAuthn.enable")
            cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
            page.goto(f"{local.base_url}/oauth/account")
            page.fill("#tenant", "operators")
            page.fill("#username", "olivia")
            page.fill("#password", "olivia-password")
            page.click("button:text-is('Sign in')")
            if page.locator("#code").count():  # the operators tenant asks for her code here too
                page.fill("#code", olivia_code())
                page.click("button:text-is('Sign in')")
            page.fill("#passkey_name", "Laptop key")
            page.fill("#code_new", olivia_code())
            page.click("button:text-is('Add a passkey')")
            page.click("button:text-is('Create the passkey')")
            page.wait_for_selector("text=The passkey Laptop key was added: you can sign in with it.")
            context.clear_cookies()

            page.goto(f"{local.base_url}/console/people?tenant=demo&q=bob")
            page.wait_for_url(f"{local.base_url}/oauth/authorize?*")
            page.click("button:text-is('Approve with a passkey')")
            page.click("button:text-is('Use a passkey')")
            page.wait_for_url(f"{local.base_url}/console/people?tenant=demo&q=bob")
            assert "Signed in as olivia (owner)" in page.inner_text("header")
            assert page.locator("table tbody tr").all_inner_texts() == ["bob\tBob Example\tbob@demo.example\tactive"]
            seen.assert_clean()
        finally:
            context.close()
