"""Every HTML page in headless Chromium: one stylesheet, one strict header set, no CSP violation.

The stack (conftest's `demo_stack`) runs the demo app on a free port (--callback-port 0; the
demo clients' redirect URIs follow it), so the flows end on a real page. A CSP violation the browser reports fails the
test; screenshots of every page are kept in test-artifacts/.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests

from tests.demo import ALICE_ID
from tests.document_server import DocumentServer, document_server
from tests.e2e.chromium import screenshot, styled, watch
from tests.e2e.conftest import LocalStack, running_stack

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

STRICT = {"x-frame-options": "DENY", "x-content-type-options": "nosniff", "referrer-policy": "no-referrer"}
PAGE_CSP = ("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'none'; "
            "frame-ancestors 'none'; base-uri 'none'")


@pytest.fixture
def stack(demo_stack: LocalStack) -> LocalStack:
    return demo_stack


def authorize(stack: LocalStack, **params: str) -> str:
    query = {"response_type": "code", "client_id": "demo-web", "redirect_uri": f"{stack.demo_app}/callback",
             "state": "st", "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
             "code_challenge_method": "S256", **params}
    return f"{stack.base_url}/oauth/authorize?{urlencode(query)}"


def strict_headers(response: Any, csp: str = PAGE_CSP, cache: str = "no-store") -> None:
    headers = response.headers
    assert {k: headers.get(k) for k in STRICT} == STRICT
    assert headers["content-security-policy"] == csp
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["cache-control"] == cache


@pytest.mark.parametrize("name, params, status, heading, detail", [
    ("unknown-client", {"client_id": "demo-wbe"}, 400, "Unknown client",
     "No client with this client_id is registered. Check the client_id the application sends."),
    ("client-of-another-environment", {"client_id": "staging-web"}, 400, "Client of another environment",
     ("The client staging-web is registered for the staging environment, not for this one (local). "
      "Use a client registered here.")),
    ("redirect-uri-mismatch", {"redirect_uri": "http://127.0.0.1:1/callback"}, 400, "Redirect URI not registered",
     "The redirect_uri does not match a URI registered for this client."),
    ("missing-client-id", {"client_id": ""}, 400, "Invalid request", "The client_id parameter is required."),
])
def test_authorize_error_pages_say_what_went_wrong(stack: LocalStack, context: Any, name: str,
                                                   params: dict[str, str], status: int, heading: str,
                                                   detail: str) -> None:
    seen = watch(context)
    page = context.new_page()
    response = page.goto(authorize(stack, **params))
    assert response is not None and response.status == status
    strict_headers(response)
    assert page.locator("h1").inner_text() == heading
    assert page.title() == heading
    assert page.locator("main > p").first.inner_text() == detail
    assert page.locator(".meta").inner_text().startswith("Error code: ")
    assert styled(page), "the shared stylesheet did not apply"
    screenshot(page, f"authorize-error-{name}")
    seen.assert_clean()


def test_login_page_is_styled_by_the_shared_stylesheet_without_inline_styles(stack: LocalStack,
                                                                             context: Any) -> None:
    seen = watch(context)
    page = context.new_page()
    response = page.goto(authorize(stack))
    assert response is not None and response.status == 200
    strict_headers(response, csp=PAGE_CSP.replace("form-action 'none'", f"form-action 'self' {stack.demo_app}"))
    assert page.locator("style").count() == 0 and page.locator("[style]").count() == 0
    assert page.locator("link[rel=stylesheet]").get_attribute("href").startswith("../assets/authgate.css?v=")
    assert styled(page)
    screenshot(page, "authorize-login")
    seen.assert_clean()


@pytest.fixture(scope="module")
def agent_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalStack, DocumentServer]]:
    """A stack that fetches client metadata documents from 127.0.0.1, trusting the test CA (SSL_CERT_FILE).

    Started with --allow-loopback-client-metadata, the old name of --allow-loopback-outbound: the alias works."""
    tmp = tmp_path_factory.mktemp("agent-pages")
    saved = os.environ.get("SSL_CERT_FILE")
    with document_server(tmp) as server:
        os.environ["SSL_CERT_FILE"] = str(server.ca)  # inherited by `authgate serve` only
        try:
            with running_stack(tmp / "serve", "--allow-loopback-client-metadata") as stack:
                yield stack, server
        finally:
            if saved is None:
                os.environ.pop("SSL_CERT_FILE", None)
            else:
                os.environ["SSL_CERT_FILE"] = saved


@pytest.mark.parametrize("name", ["Test Agent", None])
def test_consent_page_of_a_metadata_document_client(agent_stack: tuple[LocalStack, DocumentServer], context: Any,
                                                    name: str | None) -> None:
    """Draft 8.5 and MCP security considerations: who the client says it is, where it lives, where the
    answer goes, and a warning when every redirect URI is on localhost; styled, strict, no CSP violation."""
    stack, server = agent_stack
    client_id = server.document("/named.json" if name else "/nameless.json", client_name=name)
    seen = watch(context)
    page = context.new_page()
    response = page.goto(authorize(stack, client_id=client_id, redirect_uri="http://127.0.0.1:9/callback"))
    assert response is not None and response.status == 200
    strict_headers(response, csp=PAGE_CSP.replace("form-action 'none'", "form-action 'self' http://127.0.0.1:9"))
    assert styled(page)
    if name:
        assert page.locator("h1").inner_text() == "Sign in to authorize Test Agent"
        assert page.locator(".identity").inner_text() == (
            f"Test Agent describes itself in a document on 127.0.0.1 ({client_id}). authgate has not verified "
            "who runs it.")
    else:
        assert page.locator("h1").inner_text() == f"Sign in to authorize {client_id}"
        assert page.locator(".identity.warning").inner_text() == (
            f"This application gave no name: all that is known about it is its address, {client_id} on "
            "127.0.0.1. Approve only if you recognise this address.")
    assert page.locator(".document-host").inner_text() == "127.0.0.1"
    assert page.locator(".redirect-host").inner_text() == "127.0.0.1"
    warning = page.locator(".warning.localhost")
    assert warning.is_visible() and warning.get_attribute("role") == "alert"
    # Optional (an email's login domain or the default tenant may name it), and it says what to type.
    tenant = page.locator("#tenant")
    assert tenant.get_attribute("required") is None and tenant.get_attribute("aria-describedby") == "tenant-help"
    assert page.locator("#tenant-help").inner_text().startswith("The short id your administrator gave you")
    screenshot(page, f"authorize-consent-metadata-{'named' if name else 'nameless'}")
    seen.assert_clean()


def test_problem_page_is_styled_cacheable_and_strict(stack: LocalStack, context: Any) -> None:
    seen = watch(context)
    page = context.new_page()
    response = page.goto(f"{stack.base_url}/problems/invalid_grant")
    assert response is not None and response.status == 200
    strict_headers(response, cache="public, max-age=3600")
    assert page.locator("h1").inner_text() == "invalid_grant — Invalid grant"
    assert styled(page)
    screenshot(page, "problem-page")
    seen.assert_clean()


def test_stylesheet_route_is_the_templates_and_immutable(stack: LocalStack) -> None:
    response = requests.get(f"{stack.base_url}/assets/authgate.css", timeout=10)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/css; charset=utf-8"
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "main {" in response.text


def icon_requests(stack: LocalStack) -> list[tuple[str, int]]:
    """(path, status) of every request for an icon the stack and its demo app have logged so far."""
    lines = [json.loads(line) for line in stack.log(tail=100_000).splitlines() if line.startswith('{"level": "INFO"')]
    return [(str(line["path"]), int(line["status"])) for line in lines
            if line.get("message") == "request" and str(line.get("path")) in ("/favicon.ico", "/assets/icon.svg")]


def test_no_page_leaves_the_browser_asking_for_a_missing_icon(stack: LocalStack, context: Any) -> None:
    """A page that names no icon makes the browser ask for /favicon.ico: a 404 and an error in its console."""
    errors: list[str] = []
    context.on("page", lambda page: page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None))
    seen = watch(context)
    before = icon_requests(stack)
    for url in (authorize(stack), f"{stack.base_url}/oauth/account", f"{stack.base_url}/problems/invalid_grant",
                f"{stack.demo_app}/"):
        page = context.new_page()
        page.goto(url)
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(500)  # the browser asks for an icon after the page has loaded
        page.close()
    asked = icon_requests(stack)[len(before):]
    assert [path for path, _status in asked if path == "/favicon.ico"] == []
    assert asked and all(found == ("/assets/icon.svg", 200) for found in asked), asked
    assert errors == []
    seen.assert_clean()


def test_the_watch_catches_a_violation(stack: LocalStack, context: Any) -> None:
    """The CSP check can fail: an inline style on a strict page is reported and caught."""
    seen = watch(context)
    page = context.new_page()
    page.goto(f"{stack.base_url}/problems/invalid_grant")
    page.evaluate("document.body.insertAdjacentHTML('beforeend', '<style>body{color:red}</style>')")
    page.wait_for_timeout(300)
    assert any("style-src" in v for v in seen.violations())
    with pytest.raises(AssertionError):
        seen.assert_clean()


def sign_in(page: Any, password: str = "alice-password") -> None:
    page.fill("#username", "alice")
    page.fill("#password", password)
    page.click("button[value=approve]")


def test_demo_app_confidential_client_flow_ends_with_tokens_and_charges(stack: LocalStack, context: Any) -> None:
    seen = watch(context)
    page = context.new_page()
    start = page.goto(f"{stack.demo_app}/")
    assert start is not None and start.status == 200
    assert start.headers["referrer-policy"] == "no-referrer"
    assert styled(page)
    screenshot(page, "demo-app-start")
    page.click("text=Sign in with demo-web")
    page.wait_for_url(f"{stack.base_url}/oauth/authorize?*")
    sign_in(page)
    page.wait_for_url(f"{stack.demo_app}/callback?*")
    assert page.locator("main").get_attribute("data-flow-done") == "true"
    assert page.locator("h1").inner_text() == "Signed in: tokens issued and GET /charges called"
    steps = page.locator("section.step h2").all_inner_texts()
    assert steps == ["1. The code came back", "2. Code exchanged: HTTP 200", "3. GET /charges: HTTP 200",
                     "4. A charge at or above the threshold"]
    assert page.locator("section.step").nth(1).locator("h3").all_inner_texts() == [
        "The access token's claims (decoded here, verified by the API)",
        "The ID token's claims: who signed in, when and how (OpenID Connect)"]
    shown = page.locator("section.step").nth(1).inner_text()
    assert f'"sub": "{ALICE_ID}"' in shown and '"username": "alice"' in shown
    assert styled(page)
    screenshot(page, "demo-app-callback")
    seen.assert_clean()
    code = parse_qs(urlsplit(page.url).query)["code"][0]
    assert code not in stack.log(100_000), "the demo app logs paths, never the code in the query"


def test_demo_app_spa_does_the_flow_in_the_browser_over_cors(stack: LocalStack, context: Any) -> None:
    seen = watch(context)
    page = context.new_page()
    token_responses: list[Any] = []
    page.on("response", lambda r: token_responses.append(r) if r.url == f"{stack.base_url}/oauth/token" else None)
    page.goto(f"{stack.demo_app}/spa/callback")
    page.click("text=Sign in with demo-spa")
    page.wait_for_url(f"{stack.base_url}/oauth/authorize?*")
    sign_in(page)
    page.wait_for_url(f"{stack.demo_app}/spa/callback*")
    page.wait_for_selector("main[data-flow-done=true]", timeout=15_000)
    assert page.url == f"{stack.demo_app}/spa/callback", "the code is removed from the address bar"
    assert page.locator("section.step h2").all_inner_texts()[:2] == [
        "1. The code came back", "2. Code exchanged in the browser (cross-origin POST): HTTP 200"]
    assert [r.headers.get("access-control-allow-origin") for r in token_responses] == [stack.demo_app]
    screenshot(page, "demo-app-spa")
    seen.assert_clean()


def test_demo_app_unknown_state_is_refused(stack: LocalStack, context: Any) -> None:
    page = context.new_page()
    response = page.goto(f"{stack.demo_app}/callback?code=x&state=forged&iss={stack.base_url}")
    assert response is not None and response.status == 400
    assert page.locator("h1").inner_text() == "This sign-in was not started here"
