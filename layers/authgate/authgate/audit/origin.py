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

from authgate.request_protocol import RequestView


class Origin(NamedTuple):
    source_ip: str = ""
    user_agent: str = ""
    request_id: str = ""


_NONE = Origin()
# An Origin, or the request it is read from when an event is recorded (most requests record none).
_CURRENT: ContextVar[Origin | tuple[RequestView, str]] = ContextVar("authgate_audit_origin", default=_NONE)


def bind(source_ip: str, user_agent: str | None, request_id: str) -> None:
    """What every event recorded from now on, in this context, says it came from."""
    _CURRENT.set(Origin(source_ip, user_agent or "", request_id))


def bind_request(request: RequestView, request_id: str) -> None:
    """`bind` to a request's address and user agent, read only if an event is recorded."""
    _CURRENT.set((request, request_id))


def current() -> Origin:
    bound = _CURRENT.get()
    if isinstance(bound, Origin):
        return bound
    request, request_id = bound
    return Origin(request.source_ip, request.headers.get("user-agent") or "", request_id)
