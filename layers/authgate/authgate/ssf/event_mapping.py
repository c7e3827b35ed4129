"""Which audit events are security events for receivers, and what each says (OpenID CAEP 1.0 3, RISC 1.0 2).

An audit event (the audit trail's: `action`, `target`, `actor`, `time`, `outcome`, `details`)
about a user, that succeeded, becomes one or more signals, each an event type and its claims:

| audit action | event type | claims |
|---|---|---|
| session.ended, user.sessions_revoked, user.disabled | CAEP session-revoked (3.1) | event_timestamp, initiating_entity, reason_admin |
| password.changed, password.reset | CAEP credential-change (3.3) | credential_type password, change_type update |
| factor.enrolled, factor.removed | CAEP credential-change | credential_type app (an authenticator app's codes), create or delete |
| passkey.added, passkey.removed | CAEP credential-change | fido2-platform (fido2-roaming for a cross-platform authenticator), create or delete; fido2_aaguid and friendly_name when known |
| user.disabled | RISC account-disabled (2.3) | none |
| user.enabled | RISC account-enabled (2.4) | none |
| user.deleted | RISC account-purged (2.2) | none |

CAEP's `event_timestamp` (2) is when the action happened; `initiating_entity` (2) is named from
the actor's type; `reason_admin` (2) is always set, in English (the CAEP interoperability
profile asks for it on both CAEP events). RISC events carry no claims.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from authgate.event_streams.event_types import (
    ACCOUNT_DISABLED,
    ACCOUNT_ENABLED,
    ACCOUNT_PURGED,
    CREDENTIAL_CHANGE,
    SESSION_REVOKED,
)

SUCCESS = "success"
SESSION_ENDINGS = {
    "session.ended": "The user signed out.",
    "user.sessions_revoked": "The user's sessions were ended.",
    "user.disabled": "The user's account was disabled.",
}
# audit action -> (credential_type, change_type, reason_admin); a passkey's type is read from the event.
CREDENTIAL_CHANGES = {
    "password.changed": ("password", "update", "The user's password was changed."),
    "password.reset": ("password", "update", "The user's password was reset."),
    "factor.enrolled": ("app", "create", "An authenticator app was added as a second factor."),
    "factor.removed": ("app", "delete", "An authenticator app was removed as a second factor."),
    "passkey.added": ("fido2-platform", "create", "A passkey was added."),
    "passkey.removed": ("fido2-platform", "delete", "A passkey was removed."),
}
ACCOUNT_CHANGES = {"user.disabled": ACCOUNT_DISABLED, "user.enabled": ACCOUNT_ENABLED, "user.deleted": ACCOUNT_PURGED}
# The audit actor's type -> CAEP initiating_entity (2); other types name none.
INITIATORS = {"user": "user", "admin": "admin", "operator": "admin", "system": "system", "policy": "policy"}
ACTIONS = frozenset({*SESSION_ENDINGS, *CREDENTIAL_CHANGES, *ACCOUNT_CHANGES})


class Signal(NamedTuple):
    """One security event about a user: its type and its claims."""

    event_type: str
    claims: dict[str, Any]


def signals_of(event: dict[str, Any]) -> list[Signal]:
    """The signals an audit event calls for (none for other actions, failures, or a target that is not a user)."""
    action = event.get("action")
    if action not in ACTIONS or event.get("outcome") != SUCCESS or user_of(event) is None:
        return []
    out: list[Signal] = []
    if action in SESSION_ENDINGS:
        out.append(Signal(SESSION_REVOKED, _caep(event, SESSION_ENDINGS[action])))
    if action in CREDENTIAL_CHANGES:
        credential_type, change_type, reason = CREDENTIAL_CHANGES[action]
        details = _details(event)
        claims: dict[str, Any] = {"credential_type": credential_type, "change_type": change_type, **_caep(event, reason)}
        if action.startswith("passkey."):
            if details.get("authenticator_attachment") == "cross-platform":
                claims["credential_type"] = "fido2-roaming"
            for name, source in (("fido2_aaguid", "aaguid"), ("friendly_name", "name")):
                if isinstance(details.get(source), str) and details[source]:
                    claims[name] = details[source][:256]
        out.append(Signal(CREDENTIAL_CHANGE, claims))
    if action in ACCOUNT_CHANGES:
        out.append(Signal(ACCOUNT_CHANGES[action], {}))
    return out


def user_of(event: dict[str, Any]) -> tuple[str, str] | None:
    """(user_id, email) of an event's target user ("" for an email not known); None when the target is no user."""
    target = event.get("target")
    if not isinstance(target, dict) or target.get("type") != "user" or not isinstance(target.get("id"), str) \
            or not target["id"]:
        return None
    address = _details(event).get("email")
    return target["id"], address if isinstance(address, str) else ""


def _details(event: dict[str, Any]) -> dict[str, Any]:
    details = event.get("details")
    return details if isinstance(details, dict) else {}


def _caep(event: dict[str, Any], reason: str) -> dict[str, Any]:
    """CAEP 1.0 2's optional claims, as this transmitter always sends them."""
    claims: dict[str, Any] = {}
    when = _timestamp(event.get("time"))
    if when is not None:
        claims["event_timestamp"] = when
    actor = event.get("actor")
    initiator = INITIATORS.get(str(actor.get("type"))) if isinstance(actor, dict) else None
    if initiator:
        claims["initiating_entity"] = initiator
    claims["reason_admin"] = {"en": reason}
    return claims


def _timestamp(value: object) -> int | None:
    """Seconds since the epoch of an ISO 8601 UTC time (CAEP 1.0 2 event_timestamp); None when unreadable."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return int(moment.timestamp()) if moment.tzinfo is not None else None
