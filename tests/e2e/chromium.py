"""Headless Chromium for the page tests (Playwright driving Debian's /usr/bin/chromium).

`watch(context)` records every Content Security Policy violation the browser reports, both the
`securitypolicyviolation` events of every document and the console errors Chromium writes for
them; a test that saw one fails (`Watch.assert_clean`). Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

# Runs in every document before its own scripts (Playwright injects it; page CSP does not apply)
# and reports each violation to the test through a binding that survives navigations.
_RECORD_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (e) => {
  window.__authgateCspViolation(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} on ${e.documentURI}`);
});
"""


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-chromium (make browser)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Watch:
    """CSP violations seen in one browser context: events of every document, and console errors."""

    events: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)

    def violations(self) -> list[str]:
        return [*self.events, *self.console]

    def assert_clean(self) -> None:
        assert self.violations() == [], "the browser reported Content Security Policy violations"


def watch(context: Any) -> Watch:
    """Record CSP violations in `context` from now on (call before opening pages)."""
    seen = Watch()
    context.expose_function("__authgateCspViolation", lambda text: seen.events.append(str(text)))
    context.add_init_script(_RECORD_VIOLATIONS)

    def on_page(page: Any) -> None:
        page.on("console", lambda message: seen.console.append(message.text)
                if message.type == "error" and re.search(r"Content Security Policy", message.text) else None)

    context.on("page", on_page)
    return seen


def screenshot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def styled(page: Any, timeout_ms: int = 5000) -> bool:
    """Whether the shared stylesheet applied (its card style on <main>), i.e. it loaded and CSP allowed it, within
    `timeout_ms` (a page's text can be read before its stylesheet has applied on a busy machine)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function("getComputedStyle(document.querySelector('main')).borderTopLeftRadius === '8px'",
                               timeout=timeout_ms)
    except PlaywrightTimeout:
        return False
    return True
