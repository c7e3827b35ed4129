"""The account pages in headless Chromium (issue 27 items 6, 7): from the demo app to the account page, a
password changed there; from the sign-in page's "Forgot your password?", the reset mail in the demo
app's outbox, its link used once (a second use refused). Every page is styled and reports no CSP
violation; screenshots go to test-artifacts/."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.e2e.admin_commands import admin
from tests.e2e.chromium import screenshot, styled, watch
from tests.e2e.conftest import LocalStack

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


def user(stack: LocalStack, username: str, email: str, password: str) -> None:
    done = admin(stack, "users", "create", "--tenant", "demo", "--username", username, "--email", email,
                 "--email-verified", "--password-stdin", stdin=password + "\n")
    assert done.returncode == 0, done.stderr


def test_the_account_page_changes_a_password(demo_stack: LocalStack, context: Any) -> None:
    user(demo_stack, "e2e-hana", "hana@demo.example", "hana-password-1")
    seen = watch(context)
    page = context.new_page()
    page.goto(f"{demo_stack.demo_app}/")
    page.click("text=your account page")
    assert page.locator("h1").inner_text() == "Your account" and styled(page)
    page.fill("#username", "hana@demo.example")
    page.fill("#password", "hana-password-1")
    page.click("button[type=submit]")
    assert page.locator("main").inner_text().count("Signed in as e2e-hana.") == 1
    page.fill("#current", "hana-password-1")
    page.fill("#new_password", "hana-password-2")
    page.fill("#confirm", "hana-password-2")
    screenshot(page, "account-page-change")
    page.click("button[type=submit]")
    assert page.locator("h1").inner_text() == "Password changed"
    assert page.locator("[role=status]").inner_text().startswith("Your password has been changed.")
    seen.assert_clean()


def test_a_reset_mail_arrives_in_the_outbox_and_its_link_works_once(demo_stack: LocalStack, context: Any) -> None:
    user(demo_stack, "e2e-ivan", "ivan@demo.example", "ivan-password-1")
    seen = watch(context)
    page = context.new_page()
    query = {"response_type": "code", "client_id": "demo-web", "redirect_uri": f"{demo_stack.demo_app}/callback",
             "state": "st", "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
             "code_challenge_method": "S256"}
    page.goto(f"{demo_stack.base_url}/oauth/authorize?{urlencode(query)}")
    page.click("text=Forgot your password?")
    assert page.locator("h1").inner_text() == "Forgot your password?" and styled(page)
    page.fill("#username", "e2e-ivan")
    page.click("button[type=submit]")
    assert page.locator("h1").inner_text() == "Check your email"

    assert demo_stack.mails("ivan@demo.example")  # sent by the deliver function (the stack's poller)
    page.goto(f"{demo_stack.demo_app}/outbox")
    mail = page.locator("ul.outbox li", has_text="ivan@demo.example").first
    assert "Choose a new password" in mail.inner_text()
    screenshot(page, "demo-outbox")
    link = mail.locator("a").first.get_attribute("href")
    assert link is not None and re.fullmatch(rf"{re.escape(demo_stack.base_url)}/oauth/reset-password\?token=\S+",
                                             link)
    mail.locator("a").first.click()
    assert page.locator("h1").inner_text() == "Choose a new password" and styled(page)
    page.fill("#password", "ivan-password-2")
    page.fill("#confirm", "ivan-password-2")
    page.click("button[type=submit]")
    assert page.locator("h1").inner_text() == "Password changed"

    page.goto(link)  # the same link again: used up
    assert page.locator("main").inner_text().count("password_reset_link_invalid") == 1
    screenshot(page, "reset-link-used")
    seen.assert_clean()
