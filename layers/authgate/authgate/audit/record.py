"""Recording an act: one JSON line on the function's standard output, and nothing else.

    {"level":"INFO", ..., "message":"audit", "authgate_audit":1, "event":{...}}

No AWS call and no wait: the line goes where the function's log lines go (CloudWatch Logs on a
stage), and the audit trail picks it up from there (a subscription filter matching the marker
member, `authgate_audit`: docs/audit.md). It is written whatever the log level, through the same
redaction as every log line (authgate.audit.line, authgate.logs.always_line). `event_of` reads an event back
from a line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from authgate.audit.actions import Action
from authgate.audit.event import Outcome, Party, build, stamp
from authgate.audit.line import text_of
from authgate.logs import always_line
from authgate.redaction import redact, redact_text

MARKER = "authgate_audit"
# The members every event has (authgate.audit.event); `reason` is optional.
MEMBERS = ("id", "time", "tenant", "actor", "action", "target", "outcome", "source_ip", "user_agent",
           "request_id", "details")


# The members whose values may come from a request (a user agent, an id a client chose, a reason);
# the others (id, time, action, outcome) are authgate's own.
_FROM_OUTSIDE = ("tenant", "reason", "source_ip", "user_agent", "request_id")


def record(action: Action, tenant: str, *, actor: Party, target: Party, outcome: Outcome = "success",
           reason: str | None = None, details: Mapping[str, Any] | None = None) -> None:
    """Record one act (authgate.audit.event.build says what each argument becomes): its line, redacted as every
    log line is, encoded in one pass (authgate.audit.line)."""
    stamped = stamp(action)
    always_line("audit", text_of(stamped, action, tenant, actor, target, outcome, reason, details),
                lambda: {MARKER: 1, "event": redacted(build(action, tenant, actor=actor, target=target, outcome=outcome,
                                                            reason=reason, details=details, stamped=stamped))})


def redacted(event: dict[str, Any]) -> dict[str, Any]:
    """`event` through the logs' redaction (authgate.redaction), where a value may hold what a client sent:
    the same result as redacting the whole line, at a third of its cost on the token endpoint's path
    (docs/decisions.md, measured shortcuts)."""
    for member in _FROM_OUTSIDE:
        value = event.get(member)
        if type(value) is str:
            event[member] = redact_text(value)
    event["actor"] = {key: redact_text(value) for key, value in event["actor"].items()}
    event["target"] = {key: redact_text(value) for key, value in event["target"].items()}
    event["details"] = redact(event["details"])
    return event


def line_of(event: dict[str, Any]) -> str:
    """The audit line of an event recorded outside a function (an admin command puts it on the stream)."""
    return json.dumps({MARKER: 1, "event": event}, separators=(",", ":"), ensure_ascii=False)


def event_of(line: str | bytes) -> dict[str, Any] | None:
    """The event an audit line carries; None for any other line (a log line, a line cut short)."""
    if isinstance(line, bytes):
        line = line.decode("utf-8", "replace")
    if MARKER not in line:
        return None
    try:
        document = json.loads(line)
    except ValueError:
        return None
    if not isinstance(document, dict) or document.get(MARKER) != 1:
        return None
    event = document.get("event")
    return event if is_event(event) else None


def is_event(value: Any) -> bool:
    """Whether `value` has an event's shape (every member, an id and an action as text)."""
    return (isinstance(value, dict) and all(member in value for member in MEMBERS)
            and isinstance(value["id"], str) and isinstance(value["action"], str)
            and isinstance(value["actor"], dict) and isinstance(value["target"], dict))
