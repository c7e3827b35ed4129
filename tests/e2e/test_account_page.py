"""The account page through a real `authgate serve`: a person signs in on it and changes their own password;
the change needs the current password, refuses a weak or unchanged one, and ends every earlier sign-in
(the old refresh token, the page's own cookie)."""

from __future__ import annotations

import html
import re

import pytest
import requests

from tests.e2e.admin_commands import admin
from tests.e2e.conftest import LocalStack
from tests.e2e.flows import Flows

pytestmark = pytest.mark.e2e

HIDDEN = re.compile(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)">')
PAGE_HEADERS = {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Pragma": "no-cache",
                "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
                "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
                                           "frame-ancestors 'none'; base-uri 'none'"}


def hidden(page: requests.Response) -> dict[str, str]:
    return {name: html.unescape(value) for name, value in HIDDEN.findall(page.text)}


def post(browser: requests.Session, stack: LocalStack, page: requests.Response, **fields: str) -> requests.Response:
    answer = browser.post(f"{stack.base_url}/oauth/account", data={**hidden(page), **fields}, timeout=30)
    assert answer.status_code == 200 and {k: answer.headers.get(k) for k in PAGE_HEADERS} == PAGE_HEADERS
    return answer


def test_a_person_changes_their_password_on_the_account_page(local_stack: LocalStack) -> None:
    created = admin(local_stack, "users", "create", "--tenant", "demo", "--username", "e2e-gina", "--email",
                    "gina@demo.example", "--password-stdin", stdin="gina-password-1\n")
    assert created.returncode == 0, created.stderr
    flows = Flows(local_stack.base_url)
    try:
        code, verifier = flows.authorize(username="e2e-gina", password="gina-password-1")
        old_refresh = flows.exchange(code, verifier).json()["refresh_token"]
    finally:
        flows.close()

    with requests.Session() as browser:
        page = browser.get(f"{local_stack.base_url}/oauth/account", timeout=10)
        assert page.status_code == 200 and "Sign in to manage your account." in page.text
        wrong = post(browser, local_stack, page, action="sign_in", username="e2e-gina", password="nope-nope")
        assert "The organisation, username or password is incorrect" in wrong.text
        signed_in = post(browser, local_stack, wrong, action="sign_in", username="gina@demo.example",
                         password="gina-password-1")  # the email, no organisation: the default tenant's user
        assert "Signed in as <strong>e2e-gina</strong>." in signed_in.text
        cookie = signed_in.headers["Set-Cookie"]
        assert "authgate_account=" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert "Signed in as" in browser.get(f"{local_stack.base_url}/oauth/account", timeout=10).text

        for current, new, confirm, message in (
                ("gina-password-1", "short", "short", "The password must have at least 8 characters."),
                ("gina-password-1", "gina-password-2", "gina-password-3", "The two new passwords differ."),
                ("gina-password-1", "gina-password-1", "gina-password-1",
                 "The new password must differ from the current one."),
                ("not-the-current", "gina-password-2", "gina-password-2",
                 "The current password is incorrect, or this account is temporarily locked.")):
            refused = post(browser, local_stack, signed_in, action="change", current=current, new_password=new,
                           confirm=confirm)
            assert message in html.unescape(refused.text), message
        changed = post(browser, local_stack, signed_in, action="change", current="gina-password-1",
                       new_password="gina-password-2", confirm="gina-password-2")
        assert "Your password has been changed." in changed.text
        # The page's own sign-in ended with the change.
        assert "Sign in to manage your account." in browser.get(f"{local_stack.base_url}/oauth/account",
                                                                timeout=10).text

    flows = Flows(local_stack.base_url)
    try:
        assert flows.refresh(old_refresh).json()["error"] == "invalid_grant"
        code, verifier = flows.authorize(username="e2e-gina", password="gina-password-2")
        assert flows.exchange(code, verifier).status_code == 200
    finally:
        flows.close()


def test_a_forged_account_form_is_refused(local_stack: LocalStack) -> None:
    refused = requests.post(f"{local_stack.base_url}/oauth/account", timeout=10,
                            data={"action": "sign_in", "nonce": "n", "csrf": "forged", "username": "alice",
                                  "password": "alice-password"})
    assert refused.status_code == 400 and "Error code: <code>invalid_request</code>" in refused.text
    assert "Set-Cookie" not in refused.headers
