"""Forgotten passwords through a real `authgate serve` and its demo app: the sign-in page links to the form,
the reset mail lands in the outbox (page and JSON), its link changes the password once, the answer
never tells whether the account exists, and the old refresh tokens die with the old password."""

from __future__ import annotations

import html
import re

import pytest
import requests

from tests.e2e.admin_commands import admin
from tests.e2e.conftest import LocalStack
from tests.e2e.flows import WEB, Flows, pkce_pair

pytestmark = pytest.mark.e2e

HIDDEN = re.compile(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)">')
SENT = ("If an account matches what you entered, a link to choose a new password is on its way to the account's "
        "email address. It works once, within 15 minutes.")
PAGE_HEADERS = {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Pragma": "no-cache",
                "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
                "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
                                           "frame-ancestors 'none'; base-uri 'none'"}


def hidden(page: requests.Response) -> dict[str, str]:
    return {name: html.unescape(value) for name, value in HIDDEN.findall(page.text)}


def headers_of(response: requests.Response) -> dict[str, str | None]:
    """The page headers as sent (every one of PAGE_HEADERS must be there: a missing one reads as None)."""
    return {k: response.headers.get(k) for k in PAGE_HEADERS}


def mails(stack: LocalStack, to: str) -> list[dict[str, object]]:
    listed = requests.get(f"{stack.demo_app}/outbox.json", timeout=10)
    assert (listed.status_code, listed.headers["Content-Type"]) == (200, "application/json")
    return [m for m in listed.json() if m["kind"] == "mail" and m["to"] == to]


def ask(session: requests.Session, stack: LocalStack, username: str) -> requests.Response:
    """The sign-in page's link, then the form posted for `username`."""
    page = session.get(f"{stack.base_url}/oauth/forgot-password", params={"tenant": "demo"}, timeout=10)
    assert page.status_code == 200 and headers_of(page) == PAGE_HEADERS
    return session.post(f"{stack.base_url}/oauth/forgot-password", timeout=30,
                        data={**hidden(page), "username": username})


def test_a_reset_link_arrives_in_the_outbox_and_works_once(demo_stack: LocalStack) -> None:
    created = admin(demo_stack, "users", "create", "--tenant", "demo", "--username", "e2e-erin", "--email",
                    "erin@demo.example", "--password-stdin", stdin="erin-password-1\n")
    assert created.returncode == 0, created.stderr
    web = (WEB[0], WEB[1], f"{demo_stack.demo_app}/callback")
    flows = Flows(demo_stack.base_url)
    try:
        sign_in_page = flows.login_page(web, pkce_pair()[1])
        assert '<a href="forgot-password?tenant=demo">Forgot your password?</a>' in sign_in_page.text
        code, verifier = flows.authorize(web, username="e2e-erin", password="erin-password-1")
        old_refresh = flows.exchange(code, verifier, web).json()["refresh_token"]
    finally:
        flows.close()

    with requests.Session() as browser:
        known = ask(browser, demo_stack, "erin@demo.example")  # by email; by username works as well
        unknown = ask(browser, demo_stack, "nobody@demo.example")
        for answer in (known, unknown):  # the same page: nothing says whether the account exists
            assert (answer.status_code, headers_of(answer)) == (200, PAGE_HEADERS)
            assert SENT in html.unescape(answer.text)
        assert known.text == unknown.text

        (mail,) = demo_stack.mails("erin@demo.example")  # sent by the deliver function, nobody's dropped
        assert mail["subject"] == "Choose a new password"
        link = re.search(r"http://\S+/oauth/reset-password\?token=\S+", str(mail["text"]))
        assert link is not None and link.group(0).startswith(demo_stack.base_url)
        outbox_page = requests.get(f"{demo_stack.demo_app}/outbox", timeout=10)
        assert outbox_page.status_code == 200 and "erin@demo.example" in outbox_page.text

        form = browser.get(link.group(0), timeout=10)
        assert (form.status_code, headers_of(form)) == (200, PAGE_HEADERS)
        fields = hidden(form)
        short = browser.post(f"{demo_stack.base_url}/oauth/reset-password", timeout=30,
                             data={**fields, "password": "short", "confirm": "short"})
        assert "The password must have at least 8 characters." in short.text  # the link is not used up
        changed = browser.post(f"{demo_stack.base_url}/oauth/reset-password", timeout=30,
                               data={**hidden(short), "password": "erin-password-2", "confirm": "erin-password-2"})
        assert changed.status_code == 200
        assert "Your password has been changed." in changed.text
        again = browser.post(f"{demo_stack.base_url}/oauth/reset-password", timeout=30,
                             data={**hidden(short), "password": "erin-password-3", "confirm": "erin-password-3"})
        assert again.status_code == 400
        assert "Error code: <code>password_reset_link_invalid</code>" in again.text
        assert browser.get(link.group(0), timeout=10).status_code == 400
        token = link.group(0).rpartition("token=")[2]
        assert token not in demo_stack.log(tail=100_000) and "erin@demo.example" not in demo_stack.log(tail=100_000)

    flows = Flows(demo_stack.base_url)
    try:
        code, verifier = flows.authorize(web, username="e2e-erin", password="erin-password-2")
        assert flows.exchange(code, verifier, web).status_code == 200
        assert flows.refresh(old_refresh, web).json()["error"] == "invalid_grant"  # ended with the old password
    finally:
        flows.close()


def test_a_forged_form_is_refused(demo_stack: LocalStack) -> None:
    refused = requests.post(f"{demo_stack.base_url}/oauth/forgot-password", timeout=10,
                            data={"nonce": "n", "csrf": "forged", "username": "alice"})
    assert refused.status_code == 400 and "Error code: <code>invalid_request</code>" in refused.text
    assert mails(demo_stack, "alice@demo.example") == []
