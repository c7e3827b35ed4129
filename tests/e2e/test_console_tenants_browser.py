"""The console's tenant pages in headless Chromium (docs/console.md, "Tenants"): olivia lists the tenants, opens
demo's settings, requires a second factor of demo's people (bob's next sign-in asks for his code), turns it off again
after the confirmation that says what it weakens, and creates a tenant.

Every page is checked by axe-core (no serious or critical violation) and by the CSP watch, and photographed to
test-artifacts/console-tenant*.png; the settings page at phone width too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.chromium import screenshot, watch
from tests.e2e.conftest import LocalStack, running_stack
from tests.e2e.console_browser_support import accessible, sign_in_as_olivia
from tests.e2e.flows import Flows, pkce_pair

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    """A stack of its own: its tenants change, and olivia signs in to it once."""
    with running_stack(tmp_path_factory.mktemp("authgate-console-tenants")) as running:
        yield running


def test_olivia_reads_and_changes_the_settings_of_demo_and_creates_a_tenant(stack: LocalStack, context: Any) -> None:
    seen = watch(context)
    page = context.new_page()
    sign_in_as_olivia(page, stack, "/console/tenants")
    assert page.title() == "Tenants · authgate console"
    assert page.locator("table tbody tr").all_inner_texts() == [
        "acme\tAcme Corp.\tusd\tno", "demo\tDemo Inc.\tusd, eur\tno", "operators\tOperators\tnone\tyes"]
    accessible(page, "tenants")

    page.click("table a:text-is('demo')")
    page.wait_for_url(f"{stack.base_url}/console/tenant?tenant=demo")
    assert page.locator("h1").inner_text() == "Tenant demo"
    settings = page.inner_text("main section")
    assert "Currencies\nusd, eur\nThe currencies its charges may use" in settings, settings
    assert "Second factor required\nno\nWhether every sign-in of its people needs a second factor" in settings
    accessible(page, "tenant")
    page.set_viewport_size({"width": 375, "height": 800})  # phone width: nothing wider than the screen
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, "console-tenant-phone")
    page.set_viewport_size({"width": 1280, "height": 800})

    page.click("main a:text-is('Change the settings')")
    page.wait_for_url(f"{stack.base_url}/console/tenant-update?tenant=demo")
    assert page.input_value("#s-currencies") == "usd eur"
    assert page.is_checked("input[name=require_mfa][value=no]")
    accessible(page, "tenant-update")
    page.check("input[name=require_mfa][value=yes]")
    page.click("main button:text-is('Save the changes')")
    assert page.locator("main [role=status]").inner_text() == "Done: tenant demo updated (usd, eur)."
    accessible(page, "tenant-updated")

    # The stack honours it: bob's password alone no longer signs him in, his one-time code is asked for.
    flows = Flows(stack.base_url)
    try:
        asked = flows.submit_login(flows.login_page(challenge=pkce_pair()[1]), username="bob",
                                   password="bob-password")
        assert asked.status_code == 200 and 'name="code"' in asked.text, asked.text[:500]
    finally:
        flows.close()

    page.click("main a:text-is('The settings of demo')")
    assert "Second factor required\nyes" in page.inner_text("main section")
    page.click("main a:text-is('Change the settings')")
    page.check("input[name=require_mfa][value=no]")
    page.click("main button:text-is('Save the changes')")
    assert page.locator("h1").inner_text() == "Weaken the security of demo?"
    assert page.inner_text("main p") == ("This weakens the security of tenant demo: Second factor required: yes "
                                         "becomes no.")
    accessible(page, "tenant-confirm")
    page.click("main button:text-is('Change the settings')")
    assert page.locator("main [role=status]").inner_text() == "Done: tenant demo updated (usd, eur)."

    page.click("nav >> text=Tenants")
    page.click("main a:text-is('Create a tenant')")
    page.wait_for_url(f"{stack.base_url}/console/tenant-create")
    accessible(page, "tenant-create")
    page.fill("#s-tenant", "globex")
    page.fill("#s-name", "Globex Corporation")
    page.fill("#s-currencies", "usd")
    page.click("main button:text-is('Create the tenant')")
    assert page.locator("main [role=status]").inner_text() == "Done: tenant globex created (usd)."
    accessible(page, "tenant-created")
    page.click("nav >> text=Tenants")
    assert "globex\tGlobex Corporation\tusd\tno" in page.locator("table tbody tr").all_inner_texts()
    seen.assert_clean()
