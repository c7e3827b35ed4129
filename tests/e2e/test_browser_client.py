"""A real OAuth client library in a real browser: panva's oauth4webapi in headless Chromium, run
from the demo SPA's origin against `authgate serve`, through the whole code flow with PKCE,
then a refresh, a revocation and a refused refresh.

The page is the demo SPA's own, served by the demo app at the SPA's registered redirect URI
(--callback-port 0; the seed's redirect URIs follow it), with its script swapped for one that
uses oauth4webapi; it runs under that page's Content-Security-Policy. Every call it makes to the
authorization server is cross-origin, so each one works only if the server answers CORS for
that origin: discovery (metadata), the code exchange and refresh (token), the access token's
validation (JWKS), the revocation, a preflighted request, and an error response the library
must be able to read. A page on any other origin is refused by the browser.

oauth4webapi comes from npm (tests/e2e/js/package-lock.json, `npm ci` in `make test`).
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.demo import ALICE_ID
from tests.e2e.chromium import screenshot, watch
from tests.e2e.conftest import LocalStack

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

LIBRARY = Path(__file__).with_name("js") / "node_modules" / "oauth4webapi" / "build" / "index.js"

# The SPA's script, in place of the demo SPA's own (/spa.js) on the demo SPA's real page, whose
# Content-Security-Policy it runs under: it starts the flow without a code and finishes it with
# one, with plain oauth4webapi calls.
SPA_SCRIPT = """
(async () => {
  const oauth = await import("/oauth4webapi.js");
  const config = JSON.parse(document.getElementById("spa").dataset.config);
  const issuer = new URL(config.issuer);
  const client = { client_id: config.client_id };
  const auth = oauth.None();
  // The local issuer is http://127.0.0.1: oauth4webapi wants that said out loud.
  const options = { [oauth.allowInsecureRequests]: true };

  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...options, algorithm: "oauth2" }));
  const here = new URL(location.href);
  if (!here.searchParams.has("code") && !here.searchParams.has("error")) {
    const code_verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    sessionStorage.setItem("flow", JSON.stringify({ code_verifier, state }));
    const url = new URL(as.authorization_endpoint);
    url.search = new URLSearchParams({
      client_id: client.client_id, redirect_uri: config.redirect_uri, response_type: "code",
      scope: "charges:read charges:write", state,
      code_challenge: await oauth.calculatePKCECodeChallenge(code_verifier), code_challenge_method: "S256",
    }).toString();
    location.assign(url.href);
    return null;
  }
  const { code_verifier, state } = JSON.parse(sessionStorage.getItem("flow"));
  const params = oauth.validateAuthResponse(as, client, here, state);   // state and iss (RFC 9207)
  const tokens = await oauth.processAuthorizationCodeResponse(as, client,
    await oauth.authorizationCodeGrantRequest(as, client, auth, params, config.redirect_uri, code_verifier, options));
  const claims = await oauth.validateJwtAccessToken(as,
    new Request(config.issuer + "/charges", { headers: { authorization: "Bearer " + tokens.access_token } }),
    config.issuer + "/charges", options);                                // fetches the JWKS
  const refreshed = await oauth.processRefreshTokenResponse(as, client,
    await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token, options));
  await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, refreshed.refresh_token, options));
  let refused;
  try {
    await oauth.processRefreshTokenResponse(as, client,
      await oauth.refreshTokenGrantRequest(as, client, auth, refreshed.refresh_token, options));
    refused = "accepted";
  } catch (error) {
    refused = error.error || error.code;                                // the error body was readable
  }
  // A header outside the CORS-safelisted ones makes the browser preflight; exposed headers are readable.
  const traced = await fetch(as.token_endpoint, { method: "POST", headers: { "x-request-id": "spa-trace-1",
    "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=refresh_token&client_id=demo-spa" });
  return {
    scope: tokens.scope, token_type: tokens.token_type, has_refresh: Boolean(tokens.refresh_token),
    sub: claims.sub, client_id: claims.client_id, aud: claims.aud,
    refreshed_scope: refreshed.scope, rotated: refreshed.refresh_token !== tokens.refresh_token,
    refused_after_revocation: refused,
    traced: { status: traced.status, request_id: traced.headers.get("x-request-id"), error: (await traced.json()).error },
  };
})().then(
  (result) => { if (result) finish(result); },
  (error) => finish({ failed: String(error), code: error.code, error: error.error }));

function finish(result) {
  window.__result = result;
  document.getElementById("spa").textContent = JSON.stringify(result, null, 2);
  document.querySelector("main").dataset.flowDone = "true";
}
"""

# A page on an origin no public client registered, trying the same calls.
STRANGER = """<!doctype html><meta charset="utf-8"><title>stranger</title>
<script type="module">
const issuer = ISSUER;
const outcome = async (promise) => { try { const r = await promise; return r.status; } catch (e) { return e.name; } };
window.__result = {
  metadata: await outcome(fetch(issuer + "/.well-known/oauth-authorization-server")),
  token: await outcome(fetch(issuer + "/oauth/token", { method: "POST", body: new URLSearchParams({ grant_type: "refresh_token", client_id: "demo-spa", refresh_token: "x" }) })),
  preflighted: await outcome(fetch(issuer + "/oauth/token", { method: "POST", headers: { "x-request-id": "s" }, body: "" })),
};
</script>
"""


@pytest.fixture
def stack(demo_stack: LocalStack) -> LocalStack:
    if not LIBRARY.exists():
        pytest.fail(f"{LIBRARY} is missing: run `npm ci --prefix tests/e2e/js` (make test does)")
    return demo_stack


@pytest.fixture
def browser(chromium_browser: Any) -> Any:
    return chromium_browser


def serve_spa(context: Any, stack: LocalStack) -> str:
    """The demo SPA's real page, running the oauth4webapi script instead of its own."""
    context.route(f"{stack.demo_app}/spa.js", lambda route: route.fulfill(
        status=200, content_type="text/javascript", body=SPA_SCRIPT))
    context.route(f"{stack.demo_app}/oauth4webapi.js", lambda route: route.fulfill(
        status=200, content_type="text/javascript", body=LIBRARY.read_text("utf-8")))
    return f"{stack.demo_app}/spa/callback"


def test_oauth4webapi_code_flow_with_pkce_then_refresh_from_the_spa_origin(stack: LocalStack, browser: Any) -> None:
    context = browser.new_context()
    seen = watch(context)
    cross_origin: list[tuple[str, str, str | None]] = []
    page = context.new_page()
    page.on("response", lambda r: cross_origin.append((r.request.method, r.url.split("?")[0],
                                                       r.headers.get("access-control-allow-origin")))
            if r.url.startswith(stack.base_url) and r.request.resource_type == "fetch" else None)
    try:
        page.goto(serve_spa(context, stack))
        page.wait_for_url(f"{stack.base_url}/oauth/authorize?*")
        page.fill("#username", "alice")
        page.fill("#password", "alice-password")
        page.click("button[value=approve]")
        page.wait_for_url(f"{stack.demo_app}/spa/callback?*")
        page.wait_for_selector("main[data-flow-done=true]", timeout=20_000)
        result = page.evaluate("window.__result")
        screenshot(page, "oauth4webapi-spa")
    finally:
        context.close()
    assert result == {
        "scope": "charges:read charges:write", "token_type": "bearer", "has_refresh": True,
        "sub": ALICE_ID, "client_id": "demo-spa", "aud": f"{stack.base_url}/charges",
        "refreshed_scope": "charges:read charges:write", "rotated": True,
        "refused_after_revocation": "invalid_grant",
        "traced": {"status": 400, "request_id": "spa-trace-1", "error": "invalid_request"},
    }
    issuer = stack.base_url
    # Every cross-origin answer named the SPA's exact origin; preflights included.
    assert {(m, u) for m, u, _ in cross_origin} >= {
        ("GET", f"{issuer}/.well-known/oauth-authorization-server"), ("GET", f"{issuer}/.well-known/jwks.json"),
        ("POST", f"{issuer}/oauth/token"), ("POST", f"{issuer}/oauth/revoke")}
    assert {origin for _, _, origin in cross_origin} == {stack.demo_app}
    seen.assert_clean()


@pytest.fixture
def stranger(stack: LocalStack) -> Iterator[str]:
    """A real loopback origin no public client registered, serving one page (so only CORS decides)."""
    page = STRANGER.replace("ISSUER", json.dumps(stack.base_url)).encode("utf-8")

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_a_page_on_another_origin_cannot_read_anything(stack: LocalStack, browser: Any, stranger: str) -> None:
    context = browser.new_context()
    console: list[str] = []
    try:
        page = context.new_page()
        page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
        page.goto(stranger)
        page.wait_for_function("window.__result !== undefined", timeout=20_000)  # no CSP on this page
        result = page.evaluate("window.__result")
    finally:
        context.close()
    # The browser hides each response (a network error to the page): no CORS for this origin.
    assert result == {"metadata": "TypeError", "token": "TypeError", "preflighted": "TypeError"}
    origin = stranger.rstrip("/")
    cors = [line for line in console if f"from origin '{origin}' has been blocked by CORS policy" in line]
    assert len(cors) == 3, console
    assert sum("No 'Access-Control-Allow-Origin' header" in line for line in cors) == 3
