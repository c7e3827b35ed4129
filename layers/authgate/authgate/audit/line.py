"""The audit line's text, redacted and encoded in one pass, its repeated members from a memo.

    text_of(stamped, action, ...) == json.dumps({"level": "INFO", "message": "audit", "service": "authgate",
                                                 "authgate_audit": 1, "event": redacted(build(action, ...))},
                                                compact, ensure_ascii=False)

The same text, to the byte, as redacting the event (authgate.audit.record.redacted) and encoding the
line; at a fraction of the cost on the token endpoint's path, where most of an event repeats request
after request: the tenant, the client as actor and target, the grant type, the scopes, the resource
(docs/decisions.md, measured shortcuts). A member is memoised as its JSON text, redacted first:
bounded, as values may come from input. What is new in every event (its id, time, request id, a
token's jti) is redacted and encoded as it comes, without the memo.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from json.encoder import encode_basestring
from typing import Any

from authgate.audit.event import Party, Stamp, details_of
from authgate.caches import cached
from authgate.redaction import REDACTED, is_secret_key, redact, redact_text

PREFIX = '{"level":"INFO","message":"audit","service":"authgate","authgate_audit":1,"event":{'
# Members of details new in every event: not worth a place in the memo.
_UNIQUE = frozenset({"jti"})
# Anything but text, a number, a truth value or a list of text: as the logs encode it (authgate.logs).
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=str)


def text_of(stamped: Stamp, action: str, tenant: str, actor: Party, target: Party, outcome: str, reason: str | None,
            details: Mapping[str, Any] | None) -> str:
    """The whole audit line (without its newline) of the event authgate.audit.event.build makes of the same
    arguments, members in the same order."""
    origin = stamped.origin
    if target.username or target.email:
        details = details_of(target, details)
    # The id and the time are authgate's own text (hexadecimal digits, a time): nothing to escape or redact.
    return "".join((
        PREFIX, '"id":"', stamped.id, '","time":"', stamped.time, '",',
        _head(tenant, actor.type, actor.id, actor.principal or None, action, target.type, target.id, outcome,
              reason or None),
        _origin(origin.source_ip, origin.user_agent), _key("request_id"), encode_basestring(redact_text(origin.request_id)),
        ',"details":{', ",".join([_detail(k, v) for k, v in details.items()]) if details else "", "}}}"))


@cached(maxsize=1024)
def _head(tenant: str, actor_type: str, actor_id: str, principal: str | None, action: str, target_type: str,
          target_id: str, outcome: str, reason: str | None) -> str:
    """From the tenant to the outcome (and reason): what repeats from one event of an act to the next."""
    return ",".join((_fresh_text("tenant", tenant), _party("actor", actor_type, actor_id, principal),
                     _key("action") + encode_basestring(action),
                     _party("target", target_type, target_id, None),
                     _key("outcome") + encode_basestring(outcome),
                     *((_fresh_text("reason", reason),) if reason is not None else ()))) + ","


@cached(maxsize=1024)
def _origin(source_ip: str, user_agent: str) -> str:
    """Where a request came from, as a client's requests repeat it."""
    return f"{_fresh_text('source_ip', source_ip)},{_fresh_text('user_agent', user_agent)},"


def _fresh_text(key: str, value: Any) -> str:
    """`"key":"value"` for text that may come from a request, redacted (anything else as it is, as the event's
    own redaction leaves it)."""
    return _key(key) + (encode_basestring(redact_text(value)) if type(value) is str else _ENCODER.encode(value))


def _party(key: str, kind: str, name: str, principal: str | None) -> str:
    """An actor or a target (authgate.audit.event.build's view of a Party), each of its members redacted."""
    inner = f"{_key('type')}{encode_basestring(redact_text(kind))},{_key('id')}{encode_basestring(redact_text(name))}"
    if principal is not None:
        inner += f",{_key('principal')}{encode_basestring(redact_text(principal))}"
    return f"{_key(key)}{{{inner}}}"


def _detail(key: Any, value: Any) -> str:
    """One member of `details`, as the logs' redaction (authgate.redaction.redact) leaves it."""
    kind = type(value)
    if type(key) is str:
        if kind is str:
            if key not in _UNIQUE:
                return _member(key, value)
            return _key(key) + encode_basestring(REDACTED if is_secret_key(key) and value else redact_text(value))
        if kind is bool or value is None:
            return _member(key, value)
        if kind is list and all(type(v) is str for v in value):
            return _member(key, tuple(value))
    return _fresh_member(key, value)


def _fresh_member(key: Any, value: Any) -> str:
    shown = REDACTED if is_secret_key(key) and value not in (None, "") else redact(value)
    return f"{_key(str(key))}{_ENCODER.encode(shown)}"


# Text, a truth value, None, or a list of text (as a tuple): never an int, which would share True's place.
_member = cached(maxsize=4096)(_fresh_member)


@cached(maxsize=1024)
def _key(name: str) -> str:
    """`"name":`, a member's name as JSON and its colon."""
    return encode_basestring(name) + ":"
