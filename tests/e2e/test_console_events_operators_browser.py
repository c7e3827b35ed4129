"""The console's Events and Operators pages in headless Chromium (docs/console.md): olivia disables and enables bob,
finds both acts in Events filtered by bob, naming her and her role, filters by action and by client, verifies the
chain as `authgate events verify` does, then grants a support role to an operator on the Operators page and revokes
it, each confirmed first.

The local stack keeps its handlers' audit lines in the trail's directory on a background thread, a fifth of a second
at a time (authgate_cli.local.audit_trail): the Events page is asked again, within a bound, until they are there.
Every page is checked by axe-core (no serious or critical violation) and the CSP watch; screenshots go to
test-artifacts/console-events-*.png and console-operators-*.png.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.admin_commands import admin
from tests.e2e.chromium import screenshot, watch
from tests.e2e.conftest import LocalStack, running_stack
from tests.e2e.console_browser_support import accessible, sign_in_as_olivia

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

KEPT_WITHIN = 15.0  # seconds: the trail keeps a line within a fraction of a second; a loaded machine, more


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    """A stack of its own: olivia's code is single-use per 30-second step, and the test changes roles."""
    with running_stack(tmp_path_factory.mktemp("authgate-console-events")) as running:
        yield running


def rows(page: Any) -> list[list[str]]:
    """The events table's rows, cell by cell."""
    return [r.split("\t") for r in page.locator("main table tbody tr").all_inner_texts()]


def shown_once_kept(page: Any, url: str, wanted: int) -> list[list[str]]:
    """Open `url` (an Events page) until it lists `wanted` rows, or the bound passes: its rows."""
    deadline = time.monotonic() + KEPT_WITHIN
    while True:
        page.goto(url)
        found = rows(page)
        if len(found) >= wanted or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def test_olivia_reads_what_she_did_and_grants_and_revokes_a_role(stack: LocalStack, context: Any) -> None:
    seen = watch(context)
    page = context.new_page()
    sign_in_as_olivia(page, stack, "/console/person?tenant=demo&username=bob")
    page.click("main a:text-is('Disable')")
    page.click("main button:text-is('Disable')")
    assert page.locator("main [role=status]").inner_text().startswith("Done: user bob disabled")
    page.click("text=Back to bob")
    page.click("main a:text-is('Enable')")
    page.click("main button:text-is('Enable')")
    assert page.locator("main [role=status]").inner_text() == "Done: user bob enabled in tenant demo."

    # Events, filtered by person bob (and the user.* family, which the URL takes as the command does).
    page.click("nav >> text=Events")
    page.wait_for_url(f"{stack.base_url}/console/events")
    assert page.locator("h1").inner_text() == "Events"
    accessible(page, "events")
    page.fill("#user", "bob")
    page.click("main button:text-is('Show')")
    page.wait_for_url(f"{stack.base_url}/console/events?*user=bob*")
    found = shown_once_kept(page, page.url, 2)
    assert [(r[1], r[2], r[3], r[4]) for r in found] == [
        ("user.enabled", "success", "demo", "operator:olivia"), ("user.disabled", "success", "demo", "operator:olivia")]
    assert all(r[5].endswith("(bob)") and r[6] == "127.0.0.1" for r in found), found
    accessible(page, "events-bob")
    page.click("main table tbody tr >> nth=1 >> a")  # the disable's own page
    assert page.locator("h1").inner_text().startswith("user.disabled at ")
    event = page.inner_text("main")
    assert "Actor\noperator:olivia (console:usr_demoolivia000000000000)" in event, event
    assert "roles\nowner" in event and "via\nconsole" in event and "console_action\ndisable" in event, event
    accessible(page, "events-one")

    page.goto(f"{stack.base_url}/console/events")
    page.select_option("#action", "user.disabled")
    page.click("main button:text-is('Show')")
    page.wait_for_url(f"{stack.base_url}/console/events?*action=user.disabled*")
    assert [r[1] for r in rows(page)] == ["user.disabled"]
    accessible(page, "events-action")
    page.goto(f"{stack.base_url}/console/events")
    page.fill("#client", "authgate-console")
    page.click("main button:text-is('Show')")
    page.wait_for_url(f"{stack.base_url}/console/events?*client=authgate-console*")
    by_client = rows(page)
    assert "token.issued" in [r[1] for r in by_client]  # olivia's sign-in to the console
    assert all("authgate-console" in r[4] or r[1] in ("signin.succeeded", "consent.granted") for r in by_client), \
        by_client
    accessible(page, "events-client")
    page.set_viewport_size({"width": 375, "height": 800})  # phone width: the table scrolls on its own
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, "console-events-phone")
    page.set_viewport_size({"width": 1280, "height": 800})

    # Verify the chain from the form at the end of the Events page: what `authgate events verify` says.
    page.fill("#verify-since", "1d")
    page.click("main button:text-is('Verify')")
    page.wait_for_url(f"{stack.base_url}/console/events/verify?since=1d&trust=")  # no earlier key named
    assert page.locator("h1").inner_text() == "Verify the audit trail"
    verdict = page.locator("main [role=status]").inner_text()
    assert re.fullmatch(r"INTACT: \d+ object\(s\), sequence \d+ to \d+, \d+ event\(s\)", verdict), verdict
    command = admin(stack, "events", "verify", "--since", "1d")
    assert command.returncode == 0 and command.stdout.startswith("INTACT: "), command.stdout + command.stderr
    accessible(page, "events-verify")

    # Operators: sam, a new person of the operators tenant, is given support of demo, then loses it.
    created = admin(stack, "users", "create", "--tenant", "operators", "--username", "sam", "--email",
                    "sam@example.com", "--password-stdin", stdin="sam-password-1\n")
    assert created.returncode == 0, created.stderr
    page.click("nav >> text=Operators")
    page.wait_for_url(f"{stack.base_url}/console/operators")
    operators = page.locator("main table tbody tr").all_inner_texts()
    assert [o.split("\t")[0::2] for o in operators] == [["olivia", "owner"], ["sam", "none"]], operators
    accessible(page, "operators")
    page.select_option("#change", "grant")
    page.select_option("#username", "sam")
    page.select_option("#role", "support")
    page.select_option("#tenant", "demo")
    page.click("main button:text-is('Continue')")
    page.wait_for_url(f"{stack.base_url}/console/operator-role?*")
    assert page.inner_text("main") == ("Grant support (demo): sam?\n\nsam holds none now, and will hold "
                                       "support (demo).\n\nGrant\nCancel")
    accessible(page, "operators-confirm-grant")
    page.click("main button:text-is('Grant')")
    assert page.locator("main [role=status]").inner_text() == "Done: operator sam holds support (demo)."
    accessible(page, "operators-done-grant")
    shown = admin(stack, "operators", "show", "--username", "sam")
    assert "roles:     support (demo)" in shown.stdout, shown.stdout

    page.click("text=Back to the operators")
    assert "sam\tusr_" in page.locator("main table tbody tr >> nth=1").inner_text()
    assert page.locator("main table tbody tr >> nth=1").inner_text().endswith("support (demo)\tactive")
    page.select_option("#change", "revoke")
    page.select_option("#username", "sam")
    page.select_option("#role", "support")
    page.click("main button:text-is('Continue')")
    assert page.inner_text("main") == ("Revoke support: sam?\n\nsam holds support (demo) now, and will hold none."
                                       "\n\nRevoke\nCancel")
    page.click("main button:text-is('Revoke')")
    assert page.locator("main [role=status]").inner_text() == "Done: operator sam holds none."
    found = shown_once_kept(page, f"{stack.base_url}/console/events?user=sam&action=operator.*", 2)
    assert [(r[1], r[4]) for r in found] == [("operator.role_revoked", "operator:olivia"),
                                             ("operator.role_granted", "operator:olivia")]
    accessible(page, "events-operators")
    seen.assert_clean()
