"""The login + consent page driven in headless Chromium through `authgate serve` (Playwright, Debian's chromium).

The client's redirect URI (http://127.0.0.1:8765/...) has no server behind it: the browser's
request to it is intercepted and answered, which is where the test reads the code.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CALLBACK = "http://127.0.0.1:8765/callback"


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-chromium (make browser)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield chromium
        chromium.close()


def authorize_url(base_url: str, state: str) -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = urlencode({"response_type": "code", "client_id": "demo-web", "redirect_uri": CALLBACK,
                       "scope": "charges:read charges:write", "state": state,
                       "code_challenge": challenge, "code_challenge_method": "S256"})
    return f"{base_url}/oauth/authorize?{query}", verifier


def open_page(browser: object, landed: list[str]):  # type: ignore[no-untyped-def]
    context = browser.new_context()  # type: ignore[attr-defined]
    page = context.new_page()

    def callback(route) -> None:  # type: ignore[no-untyped-def]
        landed.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<h1>client callback</h1>")

    page.route("http://127.0.0.1:8765/**", callback)
    return context, page


def test_login_approve_lands_on_the_redirect_with_a_code(browser: object, base_url: str) -> None:
    landed: list[str] = []
    context, page = open_page(browser, landed)
    url, _verifier = authorize_url(base_url, "browser-state")
    response = page.goto(url)
    assert response is not None and response.status == 200
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert page.title() == "Sign in to authorize Demo web app"
    assert page.locator("li").all_inner_texts() == ["See your charges charges:read", "Create charges charges:write"]
    page.fill("#username", "alice")
    page.fill("#password", "wrong-password")
    page.click("button[value=approve]")
    assert "The username or password is incorrect" in page.locator(".message").inner_text()
    page.fill("#password", "alice-password")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "authorize-login-page.png"), full_page=True)
    page.click("button[value=approve]")
    page.wait_for_url(f"{CALLBACK}?*")
    context.close()
    assert len(landed) == 1
    parts = urlsplit(landed[0])
    params = parse_qs(parts.query)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == CALLBACK
    assert sorted(params) == ["code", "iss", "state"]
    assert params["state"] == ["browser-state"] and params["iss"] == [base_url]
    assert len(params["code"][0]) == 43


def test_deny_lands_on_the_redirect_with_access_denied(browser: object, base_url: str) -> None:
    landed: list[str] = []
    context, page = open_page(browser, landed)
    page.goto(authorize_url(base_url, "deny-state")[0])
    page.click("button[value=deny]")  # formnovalidate: no credentials needed to refuse
    page.wait_for_url(f"{CALLBACK}?*")
    context.close()
    params = parse_qs(urlsplit(landed[0]).query)
    assert params == {"error": ["access_denied"], "error_description": ["The user denied the request."],
                      "state": ["deny-state"], "iss": [base_url]}


def test_page_refuses_to_be_framed(browser: object, base_url: str) -> None:
    context = browser.new_context()  # type: ignore[attr-defined]
    page = context.new_page()
    url = authorize_url(base_url, "frame")[0]
    page.set_content(f'<iframe id="f" src="{url}"></iframe>')
    page.wait_for_timeout(1000)
    frame = page.frame_locator("#f")
    assert frame.locator("#username").count() == 0
    context.close()
