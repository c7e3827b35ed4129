"""Where the act being recorded came from: the request's source address, user agent and request id.

The App binds them once per request (authgate.http.app), before any handler runs, so an event
recorded anywhere below (a grant, a store's caller) carries them without being passed them. A
context variable: the local stack runs handlers on threads, each binding its own request. Outside
a request (the admin commands, the rotation function) an origin is bound by whoever acts, or the
fields are empty.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import NamedTuple


class Origin(NamedTuple):
    source_ip: str = ""
    user_agent: str = ""
    request_id: str = ""


_NONE = Origin()
_CURRENT: ContextVar[Origin] = ContextVar("authgate_audit_origin", default=_NONE)


def bind(source_ip: str, user_agent: str | None, request_id: str) -> None:
    """What every event recorded from now on, in this context, says it came from."""
    _CURRENT.set(Origin(source_ip, user_agent or "", request_id))


def current() -> Origin:
    return _CURRENT.get()
