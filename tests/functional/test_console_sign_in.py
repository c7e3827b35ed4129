"""The console's sign-in (docs/console.md, "Sign-in"): to the stack's own authorization endpoint and back.

A page without a session sends the browser to /oauth/authorize as the console's client (PKCE, acr_values mfa,
max_age), its secrets sealed in a cookie; the callback checks them, exchanges the code at the token endpoint over
HTTP, checks the ID token and UserInfo, and opens the session server-side. Every refusal is the console's error page.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pyotp
import pytest
import requests

from authgate.clock import ManualClock
from tests.functional.authorize_support import headers_of, page_of
from tests.functional.console_support import (
    OLIVIA_KEY,
    assert_console_failure,
    console_event,
    stack_on_http,
)

Invoke = Any
SEALED = re.compile(r"authgate_console_sign_in=v1\.[A-Za-z0-9_-]+; HttpOnly; SameSite=Lax; Path=/; Max-Age=600")


def test_a_page_without_a_session_sends_the_browser_to_sign_in_at_mfa(demo: Any, invoke: Invoke) -> None:
    result = invoke("console", console_event("GET", "/console/people", "tenant=demo&q=bo"))
    assert result["statusCode"] == 302 and result["body"] == ""
    headers = headers_of(result)
    location = urlsplit(headers.pop("Location"))
    assert SEALED.fullmatch(headers.pop("Set-Cookie")), result["multiValueHeaders"]["Set-Cookie"]
    assert {k: v for k, v in headers.items() if k != "x-request-id"} == {
        "Cache-Control": "no-store", "Pragma": "no-cache", "Referrer-Policy": "no-referrer"}
    assert (location.scheme, location.netloc, location.path) == ("http", "127.0.0.1:3000", "/oauth/authorize")
    params = parse_qs(location.query)
    assert {k: v for k, v in params.items() if k not in ("state", "nonce", "code_challenge")} == {
        "response_type": ["code"], "client_id": ["authgate-console"],
        "redirect_uri": ["http://127.0.0.1:3000/console/callback"], "scope": ["openid profile"],
        "code_challenge_method": ["S256"], "acr_values": ["mfa"], "max_age": ["43200"]}
    assert all(len(params[name][0]) >= 32 for name in ("state", "nonce", "code_challenge"))
    assert "tenant=demo" not in result["multiValueHeaders"]["Set-Cookie"][0]  # the page asked for is sealed too


@pytest.mark.slow
def test_olivia_signs_in_with_her_password_and_code_and_lands_on_the_page_she_asked_for(
        demo: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through a real HTTP server: the console's own calls to /oauth/token and /oauth/userinfo go over HTTP."""
    with stack_on_http(monkeypatch) as issuer:
        browser = requests.Session()
        asked = browser.get(f"{issuer}/console/people?tenant=demo&q=bo", allow_redirects=False)
        sign_in = browser.get(asked.headers["Location"])
        fields = page_of({"statusCode": 200, "body": sign_in.text, "multiValueHeaders": {}}).hidden()
        code = pyotp.TOTP(OLIVIA_KEY).now()
        answer = browser.post(f"{issuer}/oauth/authorize", allow_redirects=False, data={
            **fields, "username": "olivia", "password": "olivia-password", "code": code, "decision": "approve"})
        assert answer.status_code == 303 and answer.headers["Location"].startswith(f"{issuer}/console/callback?")
        landed = browser.get(answer.headers["Location"], allow_redirects=False)
        assert (landed.status_code, landed.headers["Location"]) == (302, f"{issuer}/console/people?tenant=demo&q=bo")
        cookies = landed.headers["Set-Cookie"]
        assert "authgate_console_sign_in=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0" in cookies
        assert re.search(r"authgate_console=b2xpdmlh\.[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Lax; Path=/; "
                         r"Max-Age=(43200|4319\d)$", cookies), cookies  # a second or more may pass on a busy machine
        people = browser.get(landed.headers["Location"])
        shown = page_of({"statusCode": people.status_code, "body": people.text, "multiValueHeaders": {}}).text()
        assert people.status_code == 200 and "Signed in as olivia (owner)" in shown
        assert "<td>bob@demo.example</td>" in people.text
        # The same answer twice: the sign-in it was for is over (its cookie cleared), and the code was spent.
        replayed = browser.get(answer.headers["Location"], allow_redirects=False)
        assert replayed.status_code == 400 and "console_sign_in_failed" in replayed.text


def test_a_callback_this_browser_did_not_start_is_refused(demo: Any, invoke: Invoke) -> None:
    result = invoke("console", console_event("GET", "/console/callback", "code=abc&state=xyz"))
    assert_console_failure(result, "This browser started no sign-in to the console, or started it more than 10 "
                                   "minutes ago. Open the console again to sign in.")


@pytest.mark.parametrize(("query", "detail"), [
    ("code=abc&state=another", "The answer is not for the sign-in this browser started."),
    ("code=abc&state={state}&iss=https%3A%2F%2Fevil.example", "The answer comes from another issuer."),
    ("error=access_denied&state={state}", "The sign-in did not complete."),
    ("state={state}", "The sign-in did not complete."),
])
def test_an_answer_not_for_this_sign_in_is_refused_and_ends_it(demo: Any, invoke: Invoke, query: str,
                                                                 detail: str) -> None:
    started = invoke("console", console_event("GET", "/console"))
    state = parse_qs(urlsplit(headers_of(started)["Location"]).query)["state"][0]
    cookie = headers_of(started)["Set-Cookie"].split(";", 1)[0]
    result = invoke("console", console_event("GET", "/console/callback", query.format(state=state), cookie=cookie))
    assert_console_failure(result, detail + " Open the console again to sign in.")


def test_a_sign_in_older_than_ten_minutes_is_over(demo: Any, invoke: Invoke, clock: ManualClock) -> None:
    started = invoke("console", console_event("GET", "/console"))
    state = parse_qs(urlsplit(headers_of(started)["Location"]).query)["state"][0]
    clock.advance(600)
    result = invoke("console", console_event("GET", "/console/callback", f"code=abc&state={state}",
                                             cookie=headers_of(started)["Set-Cookie"].split(";", 1)[0]))
    assert_console_failure(result, "This browser started no sign-in to the console, or started it more than 10 "
                                   "minutes ago. Open the console again to sign in.")
