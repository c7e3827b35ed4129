"""console.person_events: a person's page's "Recent events": the newest RECENT events of the last 24 hours of their
tenant naming their user id or their username, each a link to its page for who may read the Events page; a trail
that cannot be read is said, not a failure of the page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from authgate import audit
from authgate.clock import ManualClock
from authgate.console.events import HEADINGS
from authgate.console.person_events import RECENT, UNREADABLE, recent_events
from authgate.users.model import User
from tests.audit_support import AuditStage, keep
from tests.unit.console.page_support import get, signed, text

BOB = User("acme", "<b>bob</b>", 0, 0, user_id="usr_bob")
OLIVIA = audit.operator("olivia", "console:usr_olivia")
EVERY = "Every event of <b>bob</b>"


def _disabled(user_id: str = "usr_bob", username: str = "<b>bob</b>") -> tuple[Any, ...]:
    return ("user.disabled", "acme", OLIVIA, audit.user(user_id, username=username), "success", None, None)


def _refused(tenant: str = "acme") -> tuple[Any, ...]:
    """A sign-in refused before an account was found: it names the username only."""
    return ("signin.failed", tenant, audit.user("unknown"), audit.user("unknown", username="<b>bob</b>"), "failure",
            "invalid", {"method": "password"})


def _recent(operator: str = "owner") -> str:
    return recent_events(get("person"), signed(operator, *(["acme"] if operator == "support" else [])), BOB)


def test_events_naming_the_person_by_id_or_username_newest_first(audit_stage: AuditStage, clock: ManualClock) -> None:
    keep(audit_stage, _disabled())
    clock.advance(1)
    keep(audit_stage, _refused(), _refused("globex"), _disabled("usr_carol", "carol"),
         ("token.issued", "acme", audit.client("svc"), audit.client("svc"), "success", None, None))
    shown = _recent()
    assert text(shown) == (
        f"Recent events 2 newest events of the last 24 hours, newest first {' '.join(HEADINGS)} "
        "2025-06-15T15:06:41.000Z signin.failed failure (invalid) acme user:unknown user:unknown (<b>bob</b>) "
        "203.0.113.10 2025-06-15T15:06:40.000Z user.disabled success acme operator:olivia user:usr_bob (<b>bob</b>) "
        f"203.0.113.10 {EVERY}")
    assert "<b>bob" not in shown and shown.count('<a href="http://127.0.0.1:3000/console/event?id=') == 2
    assert '<a href="http://127.0.0.1:3000/console/events?tenant=acme&amp;user=usr_bob">' in shown


def test_support_reads_the_events_without_the_events_pages(audit_stage: AuditStage, clock: ManualClock) -> None:
    keep(audit_stage, _disabled())
    shown = _recent("support")
    assert text(shown).endswith("user:usr_bob (<b>bob</b>) 203.0.113.10")
    assert "/console/event" not in shown


def test_the_newest_ten_of_the_last_day(audit_stage: AuditStage, clock: ManualClock) -> None:
    keep(audit_stage, _refused())
    clock.advance(86_401)  # a day after it
    assert text(_recent()) == f"Recent events No event of the last 24 hours names <b>bob</b>. {EVERY}"
    for _ in range(RECENT + 1):
        keep(audit_stage, _refused())
        clock.advance(1)
    shown = text(_recent())
    assert shown.startswith("Recent events 10 newest events of the last 24 hours, newest first ")
    assert shown.count("signin.failed") == RECENT and "2025-06-16T15:06:51.000Z" in shown
    assert "2025-06-16T15:06:41.000Z" not in shown  # the eleventh, the oldest


def test_one_event_is_said_as_one(audit_stage: AuditStage) -> None:
    keep(audit_stage, _disabled())
    assert text(_recent("auditor")).startswith("Recent events 1 newest event of the last 24 hours, newest first ")


def test_a_trail_that_cannot_be_read_is_said_and_logged_once(
        audit_stage: AuditStage, monkeypatch: pytest.MonkeyPatch,
        log_lines: Callable[[], list[dict[str, Any]]]) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_AUDIT_BUCKET", "no-such-bucket")
    caches.reset()
    assert text(_recent()) == f"Recent events {UNREADABLE} {EVERY}"
    assert [(line["level"], line["operation"], line["aws_error"]) for line in log_lines()
            if line.get("message") == "audit trail unreadable"] == [("WARNING", "ListObjectsV2", "NoSuchBucket")]
