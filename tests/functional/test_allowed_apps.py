"""A person withdraws a client's access: on the account page ("Apps you've allowed", "Remove access"), or an operator
with `authgate users revoke-consent`, through the real handlers. The client asks for consent again, its refresh token
is refused, and the trail records consent.revoked with the person or the operator as actor, nothing secret in it."""

from __future__ import annotations

import getpass
import io
import json
from pathlib import Path
from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.functional.account_support import account_post, signed_in
from tests.functional.authorize_support import Browser, page_of, redirect_of, web_params
from tests.functional.person_events_support import ALICE, Events, by_person, trail
from tests.functional.token_support import TokenClient, body_of

# Every test signs in with a password at scrypt's full cost.
pytestmark = pytest.mark.slow

SCOPE = "openid offline_access charges:read"
REVOKED = {"error": "invalid_grant", "error_description": "The refresh token has been revoked.",
           "error_uri": "http://127.0.0.1:3000/problems/invalid_grant"}


def allowed(browser: Browser, tokens: TokenClient) -> dict[str, Any]:
    """alice signs in for demo-web and approves it; demo-web exchanges the code and refreshes: its latest tokens."""
    result = browser.submit(page_of(browser.get(web_params(scope=SCOPE))))
    assert result["statusCode"] == 303
    browser.keep_cookies(result)
    issued = body_of(tokens.exchange(redirect_of(result).one("code")))
    refreshed = tokens.refresh(issued["refresh_token"])
    assert refreshed["statusCode"] == 200
    return body_of(refreshed)


def asks_consent_again(browser: Browser) -> None:
    """The next authorization request of demo-web, in alice's session: the consent page, no code."""
    again = page_of(browser.get(web_params(scope=SCOPE)))
    assert again.status == 200
    assert [(i["name"], i["type"]) for i in again.inputs] == [("request_blob", "hidden"), ("csrf", "hidden")]
    assert "Signed in as alice ." in again.text() and "Approve" in again.text()


def test_removing_access_on_the_account_page(clock: ManualClock, browser: Browser, audit_events: Events) -> None:
    tokens = TokenClient(browser.invoke)
    issued = allowed(browser, tokens)
    assert browser.get(web_params(scope=SCOPE))["statusCode"] == 302  # remembered: no page
    page = signed_in(browser)
    assert "<h2>Apps you've allowed</h2>" in page.body
    assert '<input type="hidden" name="client_id" value="demo-web">' in page.body
    assert "<code>charges:read offline_access openid</code>" in page.body
    done = account_post(browser, page, action="consent_remove", client_id="demo-web")
    assert '<p class="message success" role="status">' in done.body and "no longer has access" in done.body
    assert "You have not allowed any application." in done.body
    refreshed = tokens.refresh(issued["refresh_token"])
    assert (refreshed["statusCode"], body_of(refreshed)) == (400, REVOKED)
    again = account_post(browser, done, action="consent_remove", client_id="demo-web")
    assert '<p class="message error" role="alert">That application had no access any more' in again.body
    (revoked,) = [e for e in trail(audit_events) if e["action"] == "consent.revoked"]
    assert revoked == by_person("consent.revoked", ALICE, "alice", client_id="demo-web", grants_revoked=1)
    assert issued["refresh_token"] not in json.dumps(audit_events())
    asks_consent_again(browser)


def operator(argv: tuple[str, ...], act: Any) -> tuple[int, str]:
    """An admin command as target.run runs it on the stack once chosen: recorded, run, finished; (status, output)."""
    from authgate_cli.admin import operator_audit
    from authgate_cli.main import build_parser

    args = build_parser(list(argv)).parse_args(list(argv))
    recording = operator_audit.start(args, argv[0])
    out = io.StringIO()
    status = act(args, out)
    if recording is not None:
        recording.finish(status)
    return status, out.getvalue()


def test_an_operator_revokes_the_consent(clock: ManualClock, browser: Browser, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches
    from authgate.audit_trail.consumer import current_trail
    from authgate.audit_trail.reader import events
    from authgate_cli.admin.user_consents import list_consents, revoke_consent

    monkeypatch.setenv("AUTHGATE_AUDIT_DIR", str(tmp_path))
    caches.reset()
    tokens = TokenClient(browser.invoke)
    issued = allowed(browser, tokens)
    user = ("--tenant", "demo", "--username", "alice")
    status, listed = operator(("users", "consents", *user, "--json"), list_consents)
    assert (status, json.loads(listed)) == (0, [{"client_id": "demo-web", "granted_at": int(clock()), "grants": 1,
                                                 "scopes": {"-": ["charges:read", "offline_access", "openid"]}}])
    withdraw = ("users", "revoke-consent", *user, "--client", "demo-web")
    assert operator(withdraw, revoke_consent) == (
        0, "consent of alice in tenant demo for client demo-web withdrawn; 1 grant revoked\n")
    refreshed = tokens.refresh(issued["refresh_token"])
    assert (refreshed["statusCode"], body_of(refreshed)) == (400, REVOKED)
    (event,) = events(current_trail())
    who = getpass.getuser()
    assert {k: event[k] for k in ("tenant", "actor", "action", "target", "outcome", "details")} == {
        "tenant": "demo", "actor": {"type": "operator", "id": who, "principal": f"local:{who}"},
        "action": "consent.revoked", "target": {"type": "user", "id": ALICE}, "outcome": "success",
        "details": {"username": "alice", "email": "alice@demo.example", "command": "authgate users revoke-consent",
                    "tenant": "demo", "client_id": "demo-web"}}
    assert issued["refresh_token"] not in json.dumps(event)
    asks_consent_again(browser)
