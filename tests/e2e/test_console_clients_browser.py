"""The console's Clients pages in headless Chromium (docs/console.md, "Clients"): olivia lists demo's clients, opens
one, registers a confidential client and sees its secret once (reloading, back and forward do not show it again),
changes it, rotates its secret and deletes it, each secret working at the token endpoint exactly as long as it should; made support of
demo, she cannot open the clients page by typing its URL, nor send a form she opened as owner (the 403 page); made an
auditor, she reads a client's page without an action, and a form sent anyway changes nothing.

Every page is checked by axe-core (no serious or critical violation) and the CSP watch; screenshots go to
test-artifacts/console-clients-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.e2e.admin_commands import admin
from tests.e2e.chromium import screenshot, watch
from tests.e2e.conftest import LocalStack, running_stack
from tests.e2e.console_browser_support import accessible, sign_in_as_olivia

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    """A stack of its own: the test registers and deletes clients and changes olivia's roles."""
    with running_stack(tmp_path_factory.mktemp("authgate-console-clients")) as running:
        yield running


def token_status(stack: LocalStack, client_id: str, secret: str) -> int:
    """The token endpoint's status for a client_credentials request authenticated with `secret`."""
    return requests.post(f"{stack.base_url}/oauth/token", data={"grant_type": "client_credentials",
                                                                "scope": "charges:read"},
                         auth=(client_id, secret), timeout=10).status_code


def test_olivia_registers_rotates_and_deletes_a_client_and_support_opens_nothing(
        stack: LocalStack, context: Any) -> None:
    seen = watch(context)
    page = context.new_page()
    sign_in_as_olivia(page, stack, "/console/clients?tenant=demo")
    assert page.title() == "Clients · authgate console"
    rows = page.locator("table tbody tr").all_inner_texts()
    assert "demo-web\tDemo web app\tconfidential\tadministrator\tauthorization_code, refresh_token" in rows
    assert len(rows) == 10
    accessible(page, "clients-list")

    page.click("table a:text-is('demo-web')")
    page.wait_for_url(f"{stack.base_url}/console/client?client_id=demo-web")
    assert page.locator("h1").inner_text() == "Client demo-web"
    assert page.locator("main h2").all_inner_texts() == ["Source: administrator", "Actions", "Registration"]
    assert "secret_hash" not in page.content()
    accessible(page, "clients-client")
    page.set_viewport_size({"width": 375, "height": 800})  # phone width: nothing wider than the screen
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, "console-clients-client-phone")
    page.set_viewport_size({"width": 1280, "height": 800})

    page.click("text=All clients of demo")
    page.click("text=Register a client")
    page.wait_for_url(f"{stack.base_url}/console/client-new?tenant=demo")
    accessible(page, "clients-new")
    page.fill("#client_id", "e2e-reports")
    page.select_option("#tenant", "demo")
    page.fill("#name", "Reports")
    page.check("input[name='grant.client_credentials']")
    page.fill("#scope", "charges:read")
    page.click("button:text-is('Register')")
    page.wait_for_url(f"{stack.base_url}/console/client-new")
    assert page.locator("[role=status]").inner_text() == "Done: client_id: e2e-reports."
    first = page.locator("code.secret").inner_text()
    assert len(first) >= 43 and token_status(stack, "e2e-reports", first) == 200
    accessible(page, "clients-secret")
    # Shown once: the answer again (a reload re-posts its form), back to the form, forward again: never the secret.
    reloaded = page.reload()
    assert reloaded is not None and reloaded.status == 400 and first not in page.content()
    assert page.locator("main > p").first.inner_text() == (
        "This form was sent already, and its answer shown once; open the page again.")
    page.go_back()
    assert page.url == f"{stack.base_url}/console/client-new?tenant=demo" and first not in page.content()
    with pytest.raises(Exception, match="ERR_CACHE_MISS"):  # the browser keeps no copy of a page never cached
        page.go_forward()
    assert first not in settled(page)
    assert admin(stack, "clients", "show", "e2e-reports").stdout.count("e2e-reports") >= 1

    page.goto(f"{stack.base_url}/console/client?client_id=e2e-reports")
    page.click("main a:text-is('Change')")
    page.wait_for_url(f"{stack.base_url}/console/client-edit?client_id=e2e-reports")
    assert page.input_value("#name") == "Reports"
    accessible(page, "clients-edit")
    page.fill("#name", "Monthly reports")
    page.check("input[name=require_par]")
    page.click("button:text-is('Save the changes')")
    assert page.locator("[role=status]").inner_text() == (
        "Done: client_id: e2e-reports updated (auth client_secret_basic, profile none, 0 keys, PAR required, "
        "resource grants none).")
    page.click("text=To e2e-reports")
    assert "name\nMonthly reports" in page.inner_text("main")

    page.click("text=Rotate the secret")
    assert page.locator("h1").inner_text() == "Rotate the secret: e2e-reports?"
    accessible(page, "clients-confirm")
    page.click("button:text-is('Rotate the secret')")
    second = page.locator("code.secret").inner_text()
    assert second != first and token_status(stack, "e2e-reports", second) == 200
    assert token_status(stack, "e2e-reports", first) == 401
    assert "The old secret stopped working now. The new one is shown once: keep it now." in page.inner_text("main")

    page.goto(f"{stack.base_url}/console/client?client_id=e2e-reports")
    page.click("main a:text-is('Delete')")
    page.click("button:text-is('Delete')")
    assert page.locator("[role=status]").inner_text() == "Done: client_id: e2e-reports deleted."
    accessible(page, "clients-deleted")
    assert token_status(stack, "e2e-reports", second) == 401

    # Forms opened as the owner, sent once olivia is support of demo (then an auditor): refused, nothing changes.
    creating, deleting = context.new_page(), context.new_page()
    creating.goto(f"{stack.base_url}/console/client-new?tenant=demo")
    deleting.goto(f"{stack.base_url}/console/client-act?client_id=demo-web&action=delete")
    try:
        assert admin(stack, "operators", "grant", "--username", "olivia", "--role", "support", "--tenant",
                     "demo").returncode == 0
        assert admin(stack, "operators", "revoke", "--username", "olivia", "--role", "owner").returncode == 0
        response = page.goto(f"{stack.base_url}/console/clients")
        assert response is not None and response.status == 403
        assert page.locator("h1").inner_text() == "Not allowed for your role"
        assert page.locator("main > p").first.inner_text() == "Your roles (support (demo)) do not allow this."
        accessible(page, "clients-forbidden")
        assert "Clients" not in page.goto(f"{stack.base_url}/console/people?tenant=demo").text()  # type: ignore[union-attr]
        creating.fill("#client_id", "e2e-replayed")
        creating.check("input[name='grant.client_credentials']")
        with creating.expect_response(f"{stack.base_url}/console/client-new") as posted:
            creating.click("button:text-is('Register')")
        assert posted.value.status == 403
        assert creating.locator("main > p").first.inner_text() == "Your roles (support (demo)) do not allow this."
        assert admin(stack, "clients", "show", "e2e-replayed").returncode == 2

        assert admin(stack, "operators", "grant", "--username", "olivia", "--role", "auditor").returncode == 0
        assert admin(stack, "operators", "revoke", "--username", "olivia", "--role", "support").returncode == 0
        response = page.goto(f"{stack.base_url}/console/client?client_id=demo-web")
        assert response is not None and response.status == 200
        assert page.locator("main h2").all_inner_texts() == ["Source: administrator", "Registration"]
        with deleting.expect_response(f"{stack.base_url}/console/client-act") as posted:
            deleting.click("button:text-is('Delete')")
        assert posted.value.status == 403
        assert deleting.locator("main > p").first.inner_text() == "Your roles (auditor) do not allow this."
        assert admin(stack, "clients", "show", "demo-web").returncode == 0
    finally:
        admin(stack, "operators", "grant", "--username", "olivia", "--role", "owner")
        for role in ("support", "auditor"):
            admin(stack, "operators", "revoke", "--username", "olivia", "--role", role)
    seen.assert_clean()


def settled(page: Any) -> str:
    """The page's HTML once Chromium's own navigation is over (after a refused history step it shows its error page,
    a navigation that Page.content cannot read during)."""
    from playwright.sync_api import Error

    for _ in range(50):
        try:
            return str(page.content())
        except Error:
            page.wait_for_timeout(100)
    return str(page.content())
