"""The console's browser tests' helpers (tests/e2e/test_console*_browser.py): olivia's sign-in with her password and
a one-time code never given before in this process, and axe-core's check of a page, with its screenshot."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pyotp
import pytest

from tests.e2e.chromium import screenshot, styled
from tests.e2e.conftest import LocalStack

OLIVIA_KEY = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
_LAST_STEP = [0]


def olivia_code() -> str:
    """A TOTP code of olivia's never given before in this process: each step is accepted once (RFC 6238 5.2),
    and the module's tests sign her in to one stack, in any order, often within one 30 s step; authgate also
    accepts the next step, so a second sign-in in the same 30 s uses it."""
    step = max(int(time.time()) // 30, _LAST_STEP[0] + 1)
    while step > int(time.time()) // 30 + 1:
        time.sleep(1)
    _LAST_STEP[0] = step
    return str(pyotp.TOTP(OLIVIA_KEY).at(step * 30))


# axe-core, installed by `npm ci --prefix tests/e2e/js`.
AXE = Path(__file__).with_name("js") / "node_modules" / "axe-core" / "axe.min.js"


def accessible(page: Any, name: str) -> None:
    """No serious or critical axe-core violation on the page (axe's own rules, WCAG 2.x A and AA included)."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci --prefix tests/e2e/js` (make test does)")
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        # Evaluated through the DevTools protocol, not as a <script> of the page: its CSP allows no script.
        page.evaluate(AXE.read_text(encoding="utf-8") + "\n;undefined")
    violations = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']})).violations
        .filter(v => v.impact === 'serious' || v.impact === 'critical')
        .map(v => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map(n => n.target.join(' ')).join(', ')})`)""")
    assert violations == [], f"axe-core on {name}"
    screenshot(page, f"console-{name}")


def sign_in_as_olivia(page: Any, stack: LocalStack, asked: str = "/console") -> None:
    """Open `asked`, sign in at the stack's authorization endpoint with olivia's password and TOTP code."""
    page.goto(f"{stack.base_url}{asked}")
    page.wait_for_url(f"{stack.base_url}/oauth/authorize?*")
    assert styled(page)
    page.fill("#username", "olivia")
    page.fill("#password", "olivia-password")
    if not page.locator("#code").count():
        page.click("button[name=decision][value=approve]")
    page.fill("#code", olivia_code())
    page.click("button[name=decision][value=approve]")
    page.wait_for_url(f"{stack.base_url}{asked}")
