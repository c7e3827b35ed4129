"""Single sign-on in headless Chromium through the demo app: signed in once with demo-web, the same browser
authorizes demo-spa with no password (only its consent), and the demo-web flow shows the ID token's claims."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.chromium import watch
from tests.e2e.conftest import LocalStack

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


def test_one_sign_in_serves_demo_web_then_demo_spa(demo_stack: LocalStack, context: Any) -> None:
    stack = demo_stack
    seen = watch(context)
    page = context.new_page()
    page.goto(f"{stack.demo_app}/")
    page.click("text=Sign in with demo-web")
    page.wait_for_url(f"{stack.base_url}/oauth/authorize?*")
    assert "See your email address" in page.locator("ul.scopes").inner_text()
    page.fill("#username", "alice")
    page.fill("#password", "alice-password")
    page.click("button[name=decision][value=approve]")
    page.wait_for_url(f"{stack.demo_app}/callback?*")
    steps = page.locator("section.step h2").all_inner_texts()
    assert steps == ["1. The code came back", "2. Code exchanged: HTTP 200", "3. GET /charges: HTTP 200",
                     "4. A charge at or above the threshold"]
    assert page.locator("section.step").nth(1).locator("h3").all_inner_texts() == [
        "The access token's claims (decoded here, verified by the API)",
        "The ID token's claims: who signed in, when and how (OpenID Connect)"]
    id_claims = page.locator("section.step").nth(1).inner_text().split("The ID token's claims", 1)[1]
    for claim in ('"sub": "usr_demoalice0000000000000"', '"aud": "demo-web"', '"acr": "password"', '"sid": '):
        assert claim in id_claims
    cookies = {c["name"]: c for c in context.cookies(stack.base_url)}
    session = cookies["authgate_session"]
    assert (session["httpOnly"], session["sameSite"], session["path"], session["secure"]) == (True, "Lax", "/", False)

    # Another client of the tenant, in the same browser: its consent, but no password.
    page.goto(f"{stack.demo_app}/spa/callback")
    page.click("text=Sign in with demo-spa")
    # The consent page, unless an earlier test of this stack already had alice approve demo-spa's scopes:
    # then no page at all, and the callback may already have taken the code out of its URL. So wait for
    # either end state, not for a URL.
    approve = page.locator("button[name=decision][value=approve]")
    approve.or_(page.locator("main[data-flow-done=true]")).first.wait_for(timeout=30_000)
    if approve.count():
        assert page.url.startswith(f"{stack.base_url}/oauth/authorize")
        assert page.locator("#password").count() == 0
        assert "Signed in as alice." in page.locator("p.signed-in").inner_text()
        approve.click()
    page.wait_for_url(f"{stack.demo_app}/spa/callback*")
    page.wait_for_selector("main[data-flow-done=true]", timeout=15_000)

    # And demo-web again: approved before, signed in: no page at all on the way back.
    visited: list[str] = []
    page.on("framenavigated", lambda frame: visited.append(frame.url))
    page.goto(f"{stack.demo_app}/")
    page.click("text=Sign in with demo-web")
    page.wait_for_url(f"{stack.demo_app}/callback?*")
    assert page.locator("h1").inner_text() == "Signed in: tokens issued and GET /charges called"
    assert not any(url.startswith(f"{stack.base_url}/oauth/authorize") for url in visited)
    seen.assert_clean()
