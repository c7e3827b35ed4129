"""Which kept events a reader asks for: a period and filters, as `authgate events list` and the console take them.

A time is ISO 8601 in UTC (2026-01-31, 2026-01-31T12:00:00Z) or an age before now (90s, 15m, 2h, 7d); a period
without a start is the DEFAULT_PERIOD_MS before its end (or now). The filters are the tenant, a user (a user id or
username, as actor or target), a client (as actor, target or `details.client_id`) and an action (exact, or a family:
`token.*`); an event matches when it matches every filter given. `newest` reads them (audit_trail.reader) newest
first, for both; `verified` checks the chain from `--since` (`authgate events verify`), for both too. Either raises
TrailUnreadable (audit_trail.errors) when AWS refuses or fails a read.
"""

from __future__ import annotations

import calendar
import re
import time
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any, NamedTuple

from authgate import clock

if TYPE_CHECKING:
    from authgate.audit_trail.chain import Verified

DEFAULT_PERIOD_MS = 86_400_000
_AGE = re.compile(r"^(\d{1,6})([smhd])$")
_AGE_MS = {"s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_FORMATS = ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%MZ", "%Y-%m-%dT%H:%M", "%Y-%m-%d")


class InvalidTime(ValueError):
    """A time that is neither an ISO 8601 time in UTC nor an age; the message names it and says what is taken."""


# A KMS key's ARN, as the stack's output AuditMacKeyArn names it (an alias would name whatever key it points to later).
_KEY_ARN = re.compile(r"arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key/[A-Za-z0-9-]{1,64}")


def trusted_key(value: str) -> str:
    """A key verification is told to trust (`--trust-key`, the console's earlier keys): a KMS key's ARN; InvalidInput
    (operators.input) naming --trust-key otherwise."""
    from authgate.operators.input import InvalidInput, text

    if not _KEY_ARN.fullmatch(value):
        raise InvalidInput(f"--trust-key {text(value, '--trust-key')!r} is not a KMS key's ARN "
                           "(arn:aws:kms:REGION:ACCOUNT:key/ID)")
    return value


def when(text: str, what: str, now_ms: int | None = None) -> int:
    """Milliseconds since the epoch of an ISO 8601 UTC time or date, or of an age before now (`what` names the
    input in the refusal: --since, say)."""
    now_ms = clock.millis() if now_ms is None else now_ms
    age = _AGE.match(text)
    if age:
        return now_ms - int(age.group(1)) * _AGE_MS[age.group(2)]
    cleaned = re.sub(r"\.\d+(?=Z?$)", "", text)
    for pattern in _FORMATS:
        try:
            return calendar.timegm(time.strptime(cleaned, pattern)) * 1000
        except ValueError:
            continue
    raise InvalidTime(f"{what} {text!r} is neither an ISO 8601 time in UTC (2026-01-31T12:00:00Z, "
                      "2026-01-31) nor an age (90s, 15m, 2h, 7d)")


def period(since: str | None, until: str | None, now_ms: int | None = None) -> tuple[int, int | None]:
    """(since, until) in milliseconds of --since and --until as given (None: not given); InvalidTime."""
    end = when(until, "--until", now_ms) if until else None
    start = when(since, "--since", now_ms) if since else \
        (end or (clock.millis() if now_ms is None else now_ms)) - DEFAULT_PERIOD_MS
    return start, end


class Filters(NamedTuple):
    """What an event must match ("" or None: any)."""

    tenant: str | None = None
    user: str | None = None
    client: str | None = None
    action: str | None = None


def _named(event: dict[str, Any], kind: str, member: str) -> set[str]:
    """The ids of `kind` an event names: its actor's, its target's, and `details[member]`."""
    found = {str(event[side].get("id", "")) for side in ("actor", "target") if event[side].get("type") == kind}
    details = event.get("details")
    return found | ({str(details[member])} if isinstance(details, dict) and details.get(member) else set())


def matcher(filters: Filters) -> Callable[[dict[str, Any]], bool]:
    """Whether an event matches every filter given."""
    action = filters.action or ""
    prefix = action[:-1] if action.endswith("*") else None

    def match(e: dict[str, Any]) -> bool:
        return ((not filters.tenant or e.get("tenant") == filters.tenant)
                and (not filters.user or filters.user in _named(e, "user", "username"))
                and (not filters.client or filters.client in _named(e, "client", "client_id"))
                and (not action or (e["action"].startswith(prefix) if prefix is not None else e["action"] == action)))

    return match


def newest(since_ms: int, until_ms: int | None, match: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    """The kept events of [since, until] that `match`, newest first: the stage's bucket, or the local stack's
    directory (audit_trail.consumer.current_trail)."""
    from authgate.audit_trail.consumer import current_trail
    from authgate.audit_trail.reader import events

    return events(current_trail(), since_ms, until_ms, match)[::-1]


def verified(since: str | None, now_ms: int | None = None, trusted: Collection[str] = ()) -> Verified:
    """The chain checked from the day of `since` as `--since` takes it (None or "": the whole chain), where
    `newest` reads, each seal trusted only when made by the stack's own MAC key or one of `trusted` (`--trust-key`);
    InvalidTime for a time neither form takes (`authgate events verify`, the console's Verify)."""
    from authgate.audit_trail.consumer import current_trail
    from authgate.audit_trail.reader import verify_trail

    return verify_trail(current_trail(), when(since, "--since", now_ms) if since else None, trusted)


def summary(e: dict[str, Any]) -> tuple[str, str, str, str, str, str]:
    """An event as one line reads it: time, action, outcome (and reason), tenant ("-": none), actor and target
    (`type:id`, a user's target with its username)."""
    actor, subject = e["actor"], e["target"]
    who = f"{actor.get('type')}:{actor.get('id')}"
    what = f"{subject.get('type')}:{subject.get('id')}"
    details = e.get("details")
    if isinstance(details, dict) and details.get("username") and subject.get("type") == "user":
        what += f" ({details['username']})"
    outcome = e["outcome"] + (f" ({e['reason']})" if e.get("reason") else "")
    return (e["time"], e["action"], outcome, e.get("tenant") or "-", who, what)
