"""console.events: the audit trail's kept events newest first, filtered as `authgate events list` filters them, a page
at a time that goes on where it stopped; one event whole with its details; what was asked kept in the form, escaped;
`events.view` judged before anything is read."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, unquote

import pytest

from authgate import audit
from authgate.clock import ManualClock
from authgate.console.events import PAGE_SIZE, get_event, get_events
from authgate.errors import ApiError
from tests.audit_support import AuditStage, keep
from tests.unit.console.page_support import get, main_text, signed, tenants

HEADINGS = "Time Action Outcome Tenant Actor Target Source address"
VERIFY = ("Verify the chain Checks that no object of the trail is missing, edited or rewritten, as authgate events "
          "verify does. Since (empty: the whole chain) Earlier keys to trust (--trust-key) one KMS key ARN a line, an "
          "earlier MAC key of this stack; empty: the stack's own key only Verify")
OLIVIA = audit.operator("olivia", "console:usr_olivia")


def _form(tenant_choices: str = "any acme globex", more_actions: str = "") -> str:
    """The filters' form as it reads: the tenants, then every action of the catalogue (and `more_actions`)."""
    from authgate.audit.catalogue import catalogue

    actions = " ".join([*catalogue(), *([more_actions] if more_actions else [])])
    return f"Tenant {tenant_choices} Person (username or user id) Client id Action any {actions} Since Until Show"


def _disabled(tenant: str = "acme", details: dict[str, Any] | None = None) -> tuple[Any, ...]:
    return ("user.disabled", tenant, OLIVIA, audit.user("usr_bob", username="bob"), "success", None, details)


@pytest.fixture
def kept(audit_stage: AuditStage, clock: ManualClock) -> None:
    """bob disabled in acme, then a client's failed authentication in globex, a second apart."""
    tenants("acme", "globex")
    keep(audit_stage, _disabled(details={"via": "console", "roles": ["owner"], "note": "<b>x</b>"}))
    clock.advance(1)
    keep(audit_stage, ("client.authentication_failed", "globex", audit.client("svc"), audit.client("svc"), "failure",
                       "wrong_secret", None))


def _event_id(answer: Any, n: int = 0) -> str:
    return re.findall(r"/console/event\?id=([0-9a-f-]{36})", str(answer.body))[n]


def test_the_events_newest_first(kept: None) -> None:
    answer = get_events(get("events"), signed("auditor"))
    assert main_text(answer) == (
        f"Events {_form()} Events, newest first {HEADINGS} "
        "2025-06-15T15:06:41.000Z client.authentication_failed failure (wrong_secret) globex client:svc client:svc "
        "203.0.113.10 2025-06-15T15:06:40.000Z user.disabled success acme operator:olivia user:usr_bob (bob) "
        f"203.0.113.10 {VERIFY}")


def test_what_was_asked_stays_in_the_form_escaped(kept: None) -> None:
    answer = get_events(get("events", [("tenant", "gone"), ("user", '"><b>bob'), ("action", "user.*")]),
                        signed("owner"))
    assert main_text(answer) == (
        f"Events {_form('any acme globex gone', 'user.*')} No event matches. {VERIFY}")  # bob is no '"><b>bob'
    body = str(answer.body)
    assert '<option value="gone" selected>gone</option>' in body  # a tenant deleted since is still a choice
    assert '<option value="user.*" selected>user.*</option>' in body  # so is a family
    assert 'value="&quot;&gt;&lt;b&gt;bob"' in body and '"><b>bob' not in body


def test_events_come_a_page_at_a_time_and_go_on_where_they_stopped(audit_stage: AuditStage,
                                                                    clock: ManualClock) -> None:
    tenants("acme")
    keep(audit_stage, *[_disabled() for _ in range(PAGE_SIZE)])  # the same second, all of them
    assert "Older events" not in main_text(get_events(get("events", [("tenant", "acme")]), signed("owner")))
    keep(audit_stage, _disabled(), _disabled())
    first = get_events(get("events", [("tenant", "acme")]), signed("owner"))
    assert main_text(first).count("user.disabled success") == PAGE_SIZE
    assert main_text(first).endswith(f"203.0.113.10 Older events {VERIFY}")
    older = re.search(r'<a href="http://127.0.0.1:3000/console/events\?([^"]+)">Older events</a>', str(first.body))
    assert older is not None
    query = parse_qs(unquote(older.group(1).replace("&amp;", "&")))
    assert query == {"tenant": ["acme"], "since": ["2025-06-14T15:06:40.000Z"], "until": ["2025-06-15T15:06:41Z"],
                     "before": [_event_id(first, PAGE_SIZE - 1)]}
    rest = get_events(get("events", [(k, v[0]) for k, v in query.items()]), signed("owner"))
    assert main_text(rest).count("user.disabled success") == 2
    assert f"Events, newest first (continued) {HEADINGS} " in main_text(rest)
    assert "Older events" not in main_text(rest)
    assert not set(re.findall(r"event\?id=([0-9a-f-]{36})", str(rest.body))) & set(
        re.findall(r"event\?id=([0-9a-f-]{36})", str(first.body)))


def test_an_events_page_with_its_details(kept: None) -> None:
    listed = get_events(get("events", [("action", "user.disabled")]), signed("owner"))
    event_id = _event_id(listed)
    answer = get_event(get("event", [("id", event_id)]), signed("auditor"))
    assert main_text(answer) == (
        "user.disabled at 2025-06-15T15:06:40.000Z Event Time 2025-06-15T15:06:40.000Z Action user.disabled Outcome "
        "success Tenant acme Actor operator:olivia (console:usr_olivia) Target user:usr_bob (bob) Source address "
        "203.0.113.10 User agent Mozilla/5.0 Request id request-of-the-event Event id " + event_id + " Details "
        'note <b>x</b> roles ["owner"] username bob via console Events of user.disabled')
    assert "<b>x" not in str(answer.body)
    other = get_event(get("event", [("id", _event_id(get_events(get("events"), signed("owner"))))]), signed("owner"))
    assert main_text(other).endswith(" Details No details. Events of client.authentication_failed")


@pytest.mark.parametrize(("query", "code", "detail"), [
    ([], "invalid_request", "Name the event with id, the event's UUID."),
    ([("id", "not-a-uuid")], "invalid_request", "Name the event with id, the event's UUID."),
    ([("id", "01977420-dc00-4000-8000-000000000000")], "invalid_request",
     "Name the event with id, the event's UUID."),  # a version 4 UUID: no time in it
    ([("id", "01977420-dc00-7000-8000-000000000000")], "not_found",
     "The audit trail keeps no event 01977420-dc00-7000-8000-000000000000."),
], ids=["none", "malformed", "not-v7", "unknown"])
def test_an_event_not_named_or_not_kept(kept: None, query: list[tuple[str, str]], code: str, detail: str) -> None:
    with pytest.raises(ApiError) as refused:
        get_event(get("event", query), signed("owner"))
    assert (refused.value.code, refused.value.detail) == (code, detail)


def test_a_time_the_command_refuses_is_refused_in_its_words(kept: None) -> None:
    with pytest.raises(ApiError) as refused:
        get_events(get("events", [("since", "yesterday")]), signed("owner"))
    assert (refused.value.code, refused.value.detail) == (
        "invalid_request", ("--since 'yesterday' is neither an ISO 8601 time in UTC (2026-01-31T12:00:00Z, 2026-01-31) "
        "nor an age (90s, 15m, 2h, 7d)."))


def test_support_and_admin_read_no_events(kept: None) -> None:
    for operator, ask, where in (
            (signed("support", "acme"), lambda s: get_events(get("events", [("tenant", "acme")]), s), " in tenant acme"),
            (signed("admin"), lambda s: get_events(get("events"), s), ""),
            (signed("support", "acme"), lambda s: get_event(get("event", [("id", "x")]), s), "")):
        with pytest.raises(ApiError) as refused:
            ask(operator)
        assert (refused.value.code, refused.value.detail) == (
            "operator_forbidden", f"Your roles ({operator.operator.described()}) do not allow this{where}.")
