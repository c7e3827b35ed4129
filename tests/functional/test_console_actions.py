"""The console's actions on a person (docs/console.md, "Actions"): confirmed, then taken by the one implementation
`authgate users` calls too (authgate.people.actions), with the same sentence; the roles' rule before anything is read,
whatever the URL or a replayed form says.
"""

from __future__ import annotations

import argparse
import io
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from authgate.clock import ManualClock
from tests.functional.authorize_support import headers_of, page_of
from tests.functional.ciba_support import deliver_queued
from tests.functional.console_support import (
    BAR,
    CONSOLE_PAGE_HEADERS,
    FORM,
    OLIVIA,
    ORIGIN,
    assert_console_error_page,
    console_event,
    grant,
    operator_session,
    page_headers,
    whole,
)

Invoke = Any


def confirmation(invoke: Invoke, cookie: str, action: str, tenant: str = "demo",
                 username: str = "bob") -> tuple[dict[str, Any], str]:
    """The confirmation page of `action`, and the Cookie header that posts its form (the session and the binding)."""
    query = urlencode({"tenant": tenant, "username": username, "action": action})
    result = invoke("console", console_event("GET", "/console/act", query, cookie=cookie))
    binding = [c.split(";", 1)[0] for c in result["multiValueHeaders"].get("Set-Cookie", [])]
    return result, "; ".join([cookie, *binding])


def post(invoke: Invoke, jar: str, fields: dict[str, str]) -> dict[str, Any]:
    return invoke("console", console_event("POST", "/console/act", cookie=jar, body=urlencode(fields).encode(),
                                           content_type=FORM))


def cli(action: str, username: str = "bob") -> str:
    """What `authgate users ACTION --tenant demo --username U` prints."""
    from authgate_cli.admin.user_actions import operated

    out = io.StringIO()
    assert operated(argparse.Namespace(tenant="demo", username=username, json=False), out, action) == 0
    return out.getvalue()


def test_olivia_disables_bob_after_confirming_and_the_console_says_what_the_command_says(
        demo: Any, invoke: Invoke) -> None:
    from authgate.stores.users import UserStore

    cookie = operator_session()
    asked, jar = confirmation(invoke, cookie, "disable")
    assert asked["statusCode"] == 200 and page_headers(asked) == CONSOLE_PAGE_HEADERS
    page = page_of(asked)
    assert page.text() == (f"{BAR.format(who='olivia (owner)')} Disable: bob (demo)? bob can no longer sign in; "
                           "their sessions and refresh tokens end now. Disable Cancel")
    forms = [f.get("action") for f in page.forms]
    assert forms == ["http://127.0.0.1:3000/console/sign-out", "http://127.0.0.1:3000/console/act"]
    fields = page.hidden()
    assert {k: v for k, v in fields.items() if k not in ("nonce", "csrf")} == {
        "tenant": "demo", "username": "bob", "action": "disable"}
    assert UserStore().get("demo", "bob").disabled is False  # type: ignore[union-attr]  # asking changes nothing

    done = post(invoke, jar, fields)
    assert done["statusCode"] == 200 and page_headers(done) == CONSOLE_PAGE_HEADERS
    said = "user bob disabled (its sessions and refresh tokens end now) in tenant demo"
    assert page_of(done).text() == f"{BAR.format(who='olivia (owner)')} Disable: bob (demo) Done: {said}. Back to bob"
    assert UserStore().get("demo", "bob").disabled is True  # type: ignore[union-attr]
    person = invoke("console", console_event("GET", "/console/person", "tenant=demo&username=bob", cookie=cookie))
    assert ("Actions Edit Enable Unlock Reset the second factor End the sessions Send a reset link Set a temporary "
            "password Delete Sign-in sessions") in page_of(person).text()

    again, _ = confirmation(invoke, jar, "enable")
    enabled = post(invoke, jar, page_of(again).hidden())
    assert "Done: user bob enabled in tenant demo." in page_of(enabled).text()
    assert cli("disable") == said + "\n" and cli("enable") == "user bob enabled in tenant demo\n"


def bob_signed_in_with_a_passkey(credential_id: str) -> None:
    """bob holds a passkey and a live sign-in session (what reset-mfa and revoke-sessions end)."""
    from authgate.stores.passkeys import PasskeyStore
    from authgate.stores.sessions import SessionStore
    from authgate.users.passkeys import Passkey

    PasskeyStore().add(Passkey(credential_id, "demo", "bob", "cose", 0, "Phone", 1))
    SessionStore().create(tenant_id="demo", user_id="usr_demobob000000000000000", username="bob", acr="mfa",
                          amr=("pwd", "otp", "mfa"), generation=0)


@pytest.mark.parametrize(("action", "said"), [
    ("unlock", "user bob unlocked in tenant demo"),
    ("reset-mfa", "second factors of bob in tenant demo removed (1 passkey); sessions_valid_after set to now"),
    ("revoke-sessions", "1 session of bob in tenant demo ended"),
])
def test_each_action_says_what_the_command_prints(demo: Any, invoke: Invoke, clock: ManualClock, action: str,
                                                  said: str) -> None:
    from authgate.stores.passkeys import PasskeyStore
    from authgate.stores.sessions import SessionStore
    from authgate.stores.user_factors import UserFactorStore
    from authgate.stores.users import UserStore

    cookie = operator_session()
    bob_signed_in_with_a_passkey("cred-1")
    asked, jar = confirmation(invoke, cookie, action)
    done = post(invoke, jar, page_of(asked).hidden())
    assert done["statusCode"] == 200 and f"Done: {said}. Back to bob" in page_of(done).text()
    bob = UserStore().get("demo", "bob")
    assert bob is not None
    if action != "unlock":
        assert SessionStore().standing(bob) == []
    if action == "reset-mfa":
        assert UserFactorStore().factors("demo", "bob").totp is False  # type: ignore[union-attr]
        assert PasskeyStore().of_user("demo", "bob") == ()
    clock.advance(1)
    bob_signed_in_with_a_passkey("cred-2")
    assert cli(action) == said + "\n"


def test_an_auditor_changes_nothing_whatever_the_form_says(demo: Any, invoke: Invoke) -> None:
    from authgate.stores.users import UserStore

    grant("audrey", "auditor")
    cookie = operator_session("audrey", "usr_audrey")
    person = invoke("console", console_event("GET", "/console/person", "tenant=demo&username=bob", cookie=cookie))
    assert "Actions" not in page_of(person).text()
    asked, jar = confirmation(invoke, cookie, "disable")
    assert_console_error_page(asked, "operator_forbidden", "Your roles (auditor) do not allow this in tenant demo.",
                              403)
    # A form taken from the home page's sign-out (a valid CSRF token of this browser), made to say disable.
    home = invoke("console", console_event("GET", "/console", cookie=cookie))
    jar = f"{cookie}; {headers_of(home)['Set-Cookie'].split(';', 1)[0]}"
    forged = {**page_of(home).hidden(), "tenant": "demo", "username": "bob", "action": "disable"}
    assert_console_error_page(post(invoke, jar, forged), "operator_forbidden",
                              "Your roles (auditor) do not allow this in tenant demo.", 403)
    assert UserStore().get("demo", "bob").disabled is False  # type: ignore[union-attr]


def test_support_acts_in_its_tenants_only_even_by_replaying_a_form(demo: Any, invoke: Invoke) -> None:
    from authgate.stores.users import UserStore

    UserStore().put_hash("acme", "carol", "not-a-password-hash", overwrite=False)
    grant("sam", "support", "acme")
    cookie = operator_session("sam", "usr_sam")
    asked, jar = confirmation(invoke, cookie, "disable", "acme", "carol")
    fields = page_of(asked).hidden()
    assert_console_error_page(post(invoke, jar, {**fields, "tenant": "demo", "username": "bob"}),
                              "operator_forbidden", "Your roles (support (acme)) do not allow this in tenant demo.",
                              403)
    assert UserStore().get("demo", "bob").disabled is False  # type: ignore[union-attr]
    assert "Done: user carol disabled" in page_of(post(invoke, jar, fields)).text()


@pytest.mark.parametrize(("fields", "status", "code", "detail"), [
    ({"action": "teleport"}, 400, "invalid_request",
     ("There is no action 'teleport': the actions are disable, enable, unlock, reset-mfa, revoke-sessions, "
      "send-reset-link, reset-password, delete, revoke-consent, unlink.")),
    ({"username": ""}, 400, "invalid_request", "Name the person with tenant and username."),
    ({"username": "nobody"}, 404, "not_found", "There is no person 'nobody' in tenant 'demo'."),
    ({"csrf": "forged"}, 400, "invalid_request", "The form has expired or was altered. Open it again."),
])
def test_a_form_that_does_not_hold_is_refused_and_changes_nothing(demo: Any, invoke: Invoke, fields: dict[str, str],
                                                                   status: int, code: str, detail: str) -> None:
    from authgate.stores.users import UserStore

    cookie = operator_session()
    asked, jar = confirmation(invoke, cookie, "disable")
    assert_console_error_page(post(invoke, jar, {**page_of(asked).hidden(), **fields}), code, detail, status)
    assert UserStore().get("demo", "bob").disabled is False  # type: ignore[union-attr]


def test_support_mails_bob_a_reset_link_the_page_and_the_command_say_the_same(
        demo: Any, invoke: Invoke, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The link is the forgotten-password page's: the same mail, under this request's issuer; it works."""
    from authgate import caches
    from authgate.stores.password_resets import PasswordResetStore

    cookie = operator_session()
    asked, jar = confirmation(invoke, cookie, "send-reset-link")
    assert page_of(asked).text() == (
        f"{BAR.format(who='olivia (owner)')} Send a reset link: bob (demo)? A link to choose a new password is mailed "
        "to bob's email address; it works once, within 15 minutes. The password stays as it is until it is used. "
        "Send a reset link Cancel")
    fields = page_of(asked).hidden()
    assert_console_error_page(post(invoke, jar, fields), "invalid_request", (
        "No link was sent: this stage sends no mail: set a temporary password instead (`authgate users "
        "reset-password`)."), 400)
    outbox = tmp_path / "outbox.jsonl"
    monkeypatch.setenv("AUTHGATE_OUTBOX", str(outbox))
    caches.reset()
    said = "a link to choose a new password was mailed to bob in tenant demo (it works once, within 15 minutes)"
    done = post(invoke, jar, fields)
    assert page_of(done).text() == (f"{BAR.format(who='olivia (owner)')} Send a reset link: bob (demo) Done: {said}. "
                                    "Back to bob")
    assert deliver_queued() == 1
    (mail,) = [json.loads(line) for line in outbox.read_text().splitlines()]
    link = re.search(r"http://127\.0\.0\.1:3000/oauth/reset-password\?token=[A-Za-z0-9_-]{43}", mail["text"])
    assert link is not None and (mail["to"], mail["subject"]) == ("bob@demo.example", "Choose a new password")
    reset = PasswordResetStore().peek(link.group(0).rpartition("=")[2])  # the link works
    assert (reset.tenant_id, reset.username, reset.state) == ("demo", "bob", "issued")
    assert cli("send-reset-link") == said + "\n"


def test_each_console_action_is_an_audit_event_naming_the_operator_and_their_roles(
        demo: Any, invoke: Invoke, audit_events: Any) -> None:
    cookie = operator_session()
    asked, jar = confirmation(invoke, cookie, "disable")
    post(invoke, jar, page_of(asked).hidden())
    assert whole(audit_events(), "user.disabled") == {
        "tenant": "demo", "actor": OLIVIA, "action": "user.disabled",
        "target": {"type": "user", "id": "usr_demobob000000000000000"}, "outcome": "success",
        **ORIGIN, "details": {"username": "bob", "via": "console", "console_action": "disable", "roles": "owner"}}
    asked, jar = confirmation(invoke, jar, "unlock", username="nobody")
    assert asked["statusCode"] == 404
    asked, jar = confirmation(invoke, jar, "unlock")
    post(invoke, jar, {**page_of(asked).hidden(), "username": "nobody"})
    assert whole(audit_events(), "account.unlocked") == {
        "tenant": "demo", "actor": OLIVIA, "action": "account.unlocked",
        "target": {"type": "user", "id": "unknown"}, "outcome": "failure", "reason": "unknown_account", **ORIGIN,
        "details": {"username": "nobody", "via": "console", "console_action": "unlock", "roles": "owner"}}


def test_a_refusal_is_an_audit_event_whatever_was_asked(demo: Any, invoke: Invoke, audit_events: Any) -> None:
    from authgate.stores.users import UserStore

    UserStore().put_hash("acme", "carol", "not-a-password-hash", overwrite=False)
    grant("sam", "support", "acme")
    cookie = operator_session("sam", "usr_sam")
    refused = invoke("console", console_event("GET", "/console/person", "tenant=demo&username=bob", cookie=cookie))
    assert refused["statusCode"] == 403
    sam = {"type": "operator", "id": "sam", "principal": "console:usr_sam"}
    assert whole(audit_events(), "console.refused") == {
        "tenant": "demo", "actor": sam, "action": "console.refused", "target": {"type": "tenant", "id": "demo"},
        "outcome": "failure", "reason": "role", **ORIGIN,
        "details": {"console_action": "people.view", "roles": "support (acme)"}}
    asked, jar = confirmation(invoke, cookie, "disable", "acme", "carol")
    post(invoke, jar, {**page_of(asked).hidden(), "tenant": "demo", "username": "bob"})
    assert [(e["action"], e["tenant"], e["details"]["console_action"]) for e in audit_events()] == [
        ("console.refused", "demo", "people.view"), ("console.refused", "demo", "people.disable")]
