"""authgate.audit: one marked JSON line per act, whatever the log level, redacted like any log line."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from authgate import audit
from authgate.audit.origin import current
from authgate.clock import ManualClock, using
from authgate.logs import get_logger
from authgate.redaction import REDACTED
from tests.log_hygiene import LogCapture

Events = Callable[[], list[dict[str, Any]]]


def test_an_act_is_one_line_with_the_marker_and_every_member(audit_events: Events) -> None:
    audit.bind("203.0.113.9", "curl/8.5", "req-42")
    with using(ManualClock(1_750_000_000.123)):
        audit.record("user.disabled", "acme", actor=audit.operator("alice", "arn:aws:iam::1:user/alice"),
                     target=audit.user("u-1", username="bob", email="bob@example.com"), details={"by": "cli"})
    (event,) = audit_events()
    assert uuid.UUID(event["id"]).version == 7 and event["id"][:13].replace("-", "") == "01977420dc7b"  # 1750000000123 ms
    assert event == {
        "id": event["id"], "time": "2025-06-15T15:06:40.123Z", "tenant": "acme",
        "actor": {"type": "operator", "id": "alice", "principal": "arn:aws:iam::1:user/alice"},
        "action": "user.disabled", "target": {"type": "user", "id": "u-1"}, "outcome": "success",
        "source_ip": "203.0.113.9", "user_agent": "curl/8.5", "request_id": "req-42",
        "details": {"username": "bob", "email": "bob@example.com", "by": "cli"},
    }


def test_the_line_is_json_with_the_marker_at_the_top_and_the_request_id() -> None:
    audit.bind("", None, "req-7")
    with LogCapture() as capture:
        audit.record("token.revoked", "demo", actor=audit.client("web"), target=audit.client("web"),
                     outcome="failure", reason="unsupported_token_type")
    (line,) = capture.lines
    document = json.loads(line)
    assert (document["level"], document["message"], document["authgate_audit"]) == ("INFO", "audit", 1)
    assert document["event"]["reason"] == "unsupported_token_type"
    assert document["event"]["request_id"] == "req-7"
    assert audit.event_of(line) == document["event"]


def test_no_log_level_holds_an_audit_line_back(audit_events: Events) -> None:
    logger = get_logger()
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with LogCapture() as capture:
            get_logger().info("an ordinary line")
            audit.record("key.rotated", "", actor=audit.SYSTEM, target=audit.Party("key", "k1"))
    finally:
        logger.setLevel(level)
    assert [json.loads(line)["message"] for line in capture.lines] == ["audit"]


def test_secrets_in_details_are_redacted_as_in_any_log_line(audit_events: Events) -> None:
    audit.record("client.changed", "demo", actor=audit.SYSTEM, target=audit.client("web"),
                 details={"client_secret": "s3cr3t-value", "note": "Bearer abc.def.ghi",
                          "authorization_details_types": ["payment_initiation"]})
    (event,) = audit_events()
    assert event["details"] == {"client_secret": REDACTED, "note": f"Bearer {REDACTED}",
                                "authorization_details_types": ["payment_initiation"]}


def test_an_action_outside_the_catalogue_is_refused() -> None:
    with pytest.raises(ValueError, match="not an audit action"):
        audit.record("token.stolen", "demo", actor=audit.SYSTEM, target=audit.SYSTEM)  # type: ignore[arg-type]


def test_without_a_request_the_origin_is_empty() -> None:
    import contextvars

    origin = contextvars.Context().run(current)
    assert tuple(origin) == ("", "", "")


@pytest.mark.parametrize("line", [
    "", "not json", '{"message": "request"}', '{"authgate_audit": 1}', '{"authgate_audit": 2, "event": {}}',
    '{"authgate_audit": 1, "event": {"id": "x"}}', '["authgate_audit"]',
])
def test_only_a_marked_line_with_a_whole_event_is_an_event(line: str) -> None:
    assert audit.event_of(line) is None


def test_the_events_own_redaction_is_the_whole_lines() -> None:
    """docs/decisions.md, measured shortcuts: an event is redacted member by member where a value may come
    from a request, with the same result as the logs' redaction of the whole event."""
    import copy

    from authgate.audit.event import build
    from authgate.audit.record import redacted
    from authgate.redaction import redact

    audit.bind("203.0.113.9", "ua Bearer abc.def.ghi", "req code=SECRET-CODE")
    event = build("client.authentication_failed", "t password=p4ss", actor=audit.client("x client_secret=s"),
                  target=audit.user("u", username="Basic dXNlcjpwYXNz", email="e@example.com"),
                  outcome="failure", reason="why token=t0k3n",
                  details={"secret": "s", "nested": {"access_token": "eyJa.eyJb.c"}, "list": ["refresh_token=r"]})
    assert redacted(copy.deepcopy(event)) == redact(event)


def test_without_a_capture_the_line_is_the_lean_one(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/decisions.md, measured shortcuts: the audit line has no location or timestamp of its own."""
    import sys

    from authgate.logs import _HANDLER, get_logger

    logger = get_logger()
    handlers, logger.handlers = logger.handlers, [_HANDLER[0]]  # the service's own handler alone, as on Lambda
    previous = _HANDLER[0].setStream(sys.stdout)
    audit.bind("192.0.2.7", "cli/1", "req-9")
    try:
        audit.record("key.rotated", "", actor=audit.SYSTEM, target=audit.Party("key", "k"))
    finally:
        _HANDLER[0].setStream(previous)
        logger.handlers = handlers
    (line,) = [line for line in capsys.readouterr().out.splitlines() if "authgate_audit" in line]
    document = json.loads(line)
    event = document["event"]
    assert uuid.UUID(event.pop("id")).version == 7 and event.pop("time").endswith("Z")
    assert document == {"level": "INFO", "message": "audit", "service": "authgate", "authgate_audit": 1, "event": {
        "tenant": "", "actor": {"type": "system", "id": "authgate"}, "action": "key.rotated",
        "target": {"type": "key", "id": "k"}, "outcome": "success", "source_ip": "192.0.2.7", "user_agent": "cli/1",
        "request_id": "req-9", "details": {}}}
