"""Audit events as a test reads them: the whole trail in order, each event but its id (a UUIDv7), time and request
id; a person's own acts (authgate.audit.person)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Events = Callable[[], list[dict[str, Any]]]
UUID7 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")
ALICE = "usr_demoalice0000000000000"
BOB = "usr_demobob000000000000000"
LOCAL = {"source_ip": "127.0.0.1", "user_agent": ""}


def trail(events: Events) -> list[dict[str, Any]]:
    """Every event so far, in order, each with its id, time and request id checked and taken out."""
    out = []
    for event in events():
        event = dict(event)
        assert UUID7.fullmatch(event.pop("id")) and TIME.fullmatch(event.pop("time")) and event.pop("request_id")
        out.append(event)
    return out


def by_person(action: str, user_id: str, username: str | None, outcome: str = "success", reason: str = "",
              **details: Any) -> dict[str, Any]:
    """The event of a person's act on their own account (authgate.audit.person), from the test's address."""
    person = {"type": "user", "id": user_id}
    return {"tenant": "demo", "actor": person, "action": action, "target": person, "outcome": outcome,
            **({"reason": reason} if reason else {}), **LOCAL,
            "details": {**({"username": username} if username else {}), **details}}


def sid_of(event: dict[str, Any], cookie: str | None) -> dict[str, Any]:
    """A session.started event with its session's id checked (an id, never the cookie's secret) and taken out."""
    details = dict(event["details"])
    sid = details.pop("sid")
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", sid) and sid not in (cookie or "")
    return {**event, "details": details}
