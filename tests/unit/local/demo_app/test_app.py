"""authgate_cli.local.demo_app.app: what the demo app answers before it calls the stack at all.

The stack's URL is a closed port: any call to it would show as "the API did not answer" (HTTP 0) in the
page, so a page that shows none made none. What it shows once the stack answers: tests/e2e.
"""

from __future__ import annotations

import socket

import pytest

from authgate_cli.local.demo_app import DemoApp, demo_agent
from authgate_cli.local.seed import DEMO_SEED, read_seed

ORIGIN = "http://127.0.0.1:8765"


@pytest.fixture
def app() -> DemoApp:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}"
    sections = read_seed(DEMO_SEED, ORIGIN)
    return DemoApp(issuer=closed, origin=ORIGIN, clients=[], agent=demo_agent(sections["clients"]),
                   payer_key="GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")


def test_opening_the_agent_page_asks_nothing_and_offers_the_button(app: DemoApp) -> None:
    status, headers, body = app.answer("GET", "/agent", {})
    text = body.decode()
    assert status == 200 and "An agent asks to pay 12.50" in text
    assert ('<form method="post" action="/agent"><div class="actions"><button type="submit">Ask bob to approve 12.50'
            "</button></div></form>") in text
    assert "HTTP" not in text and "did not answer" not in text  # nothing was sent to the stack
    csp = dict(headers)["Content-Security-Policy"]
    assert csp == (f"default-src 'none'; style-src {app.issuer}; img-src 'self' {app.issuer}; form-action 'self'; "
                   "frame-ancestors 'none'; base-uri 'none'")


def test_a_post_from_another_site_asks_nothing(app: DemoApp) -> None:
    for fetch_site in ("cross-site", "same-site"):
        status, _headers, body = app.answer("POST", "/agent", {}, fetch_site=fetch_site)
        assert status == 403 and b"<p>Only this demo app's own page may ask.</p>" in body
        assert b"did not answer" not in body


def test_post_is_the_agent_pages_only(app: DemoApp) -> None:
    assert [(s, dict(h).get("Allow")) for s, h, _b in (app.answer("POST", "/", {}), app.answer("PUT", "/agent", {}))] \
        == [(405, "GET, HEAD"), (405, "GET, HEAD, POST")]


def test_an_unknown_request_handle_is_a_400_that_starts_again(app: DemoApp) -> None:
    for path in ("/agent/request", "/agent/poll"):
        status, _headers, body = app.answer("GET", path, {"t": "nope"})
        assert status == 400 and b'This demo app holds no such request. <a href="/agent">Start again</a>.' in body
