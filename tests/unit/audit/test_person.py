"""authgate.audit.person: a person's act on their own account, the sign-in's method read from its amr, and a failed
password attempt as signin.failed (and account.locked when it locked the account)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from authgate import audit
from authgate.audit import person
from authgate.users.model import LoginResult

Events = Callable[[], list[dict[str, Any]]]


def acts(events: Events) -> list[tuple[str, dict[str, str], str, str | None, dict[str, Any]]]:
    return [(e["action"], e["target"], e["outcome"], e.get("reason"), e["details"]) for e in events()]


@pytest.mark.parametrize(("amr", "method"), [
    (["pwd"], "password"), (["hwk", "user"], "passkey"), (["swk"], "passkey"), (["otp", "mfa"], "one_time_code"),
    (["fed"], "identity_provider"), (["mfa", "sms"], "mfa+sms"), ([], "session")])
def test_the_method_is_the_first_credential_the_amr_names(amr: list[str], method: str) -> None:
    assert person.method_of(amr) == method


def test_an_act_is_the_persons_on_themselves_without_empty_details(audit_events: Events) -> None:
    audit.bind("192.0.2.1", "ua", "req-1")
    person.acted("consent.granted", "demo", "usr_a", "alice", client_id="web", scopes=[], resource=None, sid="")
    (event,) = audit_events()
    assert (event["actor"], event["target"], event["details"]) == (
        {"type": "user", "id": "usr_a"}, {"type": "user", "id": "usr_a"}, {"username": "alice", "client_id": "web"})


def test_a_failed_attempt_names_the_account_or_unknown_and_a_lock(audit_events: Events) -> None:
    person.attempted("demo", "alice", LoginResult(True, "ok", "alice", "usr_a"))  # a success: its step records it
    person.attempted("demo", "nobody", LoginResult(False, "invalid"))
    person.attempted("demo", "alice", LoginResult(False, "invalid", named="usr_a", locked_now=True),
                     method="password_and_code")
    user, unknown = {"type": "user", "id": "usr_a"}, {"type": "user", "id": "unknown"}
    assert acts(audit_events) == [
        ("signin.failed", unknown, "failure", "invalid", {"username": "nobody", "method": "password"}),
        ("signin.failed", user, "failure", "invalid", {"username": "alice", "method": "password_and_code"}),
        ("account.locked", user, "success", None, {"username": "alice"})]
