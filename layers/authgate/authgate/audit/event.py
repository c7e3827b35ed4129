"""An audit event: who did what to what, when, from where, and how it ended (docs/audit.md).

    {"id": UUIDv7, "time": "2026-01-31T12:00:00.123Z", "tenant": ..., "actor": {"type", "id"[, "principal"]},
     "action": "token.issued", "target": {"type", "id"}, "outcome": "success" | "failure", "reason"?: ...,
     "source_ip": ..., "user_agent": ..., "request_id": ..., "details": {...}}

Actors are users, clients, operators (with the principal that ran the command: an AWS ARN on a
stage, the OS user locally) and the system. Targets are whatever the act is on; a user target's id
is its stable `user_id` and `details` carry its username (and email, when known). `details` hold
what the act changed or concerned, never a secret: the event is written through the logs' redaction
(authgate.redaction) and the suite's secret checks read it like any log line.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any, Literal, NamedTuple

from authgate import clock
from authgate.audit.actions import Action
from authgate.audit.catalogue import catalogue
from authgate.audit.origin import Origin, current

Outcome = Literal["success", "failure"]


class Party(NamedTuple):
    """An actor or a target: its type and id; a user's username and email and an operator's principal
    when known (what docs/audit.md calls the actor's and target's own members)."""

    type: str
    id: str
    principal: str | None = None
    username: str | None = None
    email: str | None = None


def user(user_id: str, username: str | None = None, email: str | None = None) -> Party:
    return Party("user", user_id, username=username, email=email or None)


def client(client_id: str) -> Party:
    return Party("client", client_id)


def operator(name: str, principal: str) -> Party:
    """Whoever ran an admin command: `principal` is the AWS principal's ARN on a stage, the OS user locally."""
    return Party("operator", name, principal=principal)


SYSTEM = Party("system", "authgate")

_SECOND: list[Any] = [None, ""]  # (the last whole second formatted, its text)


def uuid7(ms: int) -> str:
    """A UUID version 7 (RFC 9562 5.7): 48 bits of milliseconds, the version (7), 12 random bits, the variant
    (0b10), 62 random bits; ids sort by time."""
    rand = bytearray(os.urandom(10))
    rand[0] = 0x70 | (rand[0] & 0x0F)
    rand[2] = 0x80 | (rand[2] & 0x3F)
    text = (ms.to_bytes(6, "big") + rand).hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def iso_time(ms: int) -> str:
    """ISO 8601 in UTC to the millisecond: 2026-01-31T12:00:00.123Z."""
    second = ms // 1000
    if _SECOND[0] != second:
        _SECOND[0], _SECOND[1] = second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
    return f"{_SECOND[1]}.{ms % 1000:03d}Z"


class Stamp(NamedTuple):
    """When and from where an act is recorded: its event's id and time, and the current origin."""

    id: str
    time: str
    origin: Origin


def stamp(action: Action) -> Stamp:
    """The stamp of an act of `action`, now (a ValueError for an action not in the catalogue)."""
    if action not in catalogue():
        raise ValueError(f"{action!r} is not an audit action of authgate/audit/catalogue.json")
    ms = clock.millis()
    return Stamp(uuid7(ms), iso_time(ms), current())


def build(action: Action, tenant: str, *, actor: Party, target: Party, outcome: Outcome = "success",
          reason: str | None = None, details: Mapping[str, Any] | None = None,
          stamped: Stamp | None = None) -> dict[str, Any]:
    """The event of one act, `stamped` (by default now, with the current origin: authgate.audit.origin)."""
    stamped = stamped or stamp(action)
    actor_view = {"type": actor.type, "id": actor.id}
    if actor.principal:
        actor_view["principal"] = actor.principal
    event: dict[str, Any] = {
        "id": stamped.id, "time": stamped.time, "tenant": tenant, "actor": actor_view, "action": action,
        "target": {"type": target.type, "id": target.id}, "outcome": outcome,
    }
    if reason:
        event["reason"] = reason
    event["source_ip"], event["user_agent"], event["request_id"] = stamped.origin
    event["details"] = details_of(target, details)
    return event


def details_of(target: Party, details: Mapping[str, Any] | None) -> dict[str, Any]:
    """An event's details: a user target's username and email (when known), then `details`."""
    extra: dict[str, Any] = {}
    if target.username:
        extra["username"] = target.username
    if target.email:
        extra["email"] = target.email
    return {**extra, **details} if details else extra
