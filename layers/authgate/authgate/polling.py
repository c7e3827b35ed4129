"""How a grant a client polls for answers: the device grant (RFC 8628 3.4-3.5) and CIBA poll mode (OpenID
Connect CIBA Core 1.0 7.3, 11), one rule for both.

A polled record (single_use.device_codes, approvals.backchannel_request) is pending, then approved or
denied, then redeemed; it has an expiry, an interval and the time its next poll is due. A poll passes
while the record is the client's, pending, unexpired and polled no sooner than that time (less
POLL_LEEWAY): its next poll is then due one interval from now, and the answer is
authorization_pending. A poll that does not pass is answered from the record as it was (`refusal`):
redeemed; past its expiry, expired_token whatever happened; approved, or denied (access_denied),
even when polled too fast; and a pending one polled too fast is slow_down: the interval grows by
SLOW_DOWN_STEP seconds for this and every later poll, and the next poll is due one grown interval
after the refused one (`slowed_due`).

RFC 8628 3.5 and CIBA Core 11 grow the interval "for this and all subsequent requests", and a
compliant client waits the grown interval from the slow_down answer, so the wait counts from the
refused poll, not from the last one that passed. The leeway spares a client that times its wait
from the request it sent rather than the answer it got. stores.polls makes each of these one
conditional write.
"""

from __future__ import annotations

from typing import Literal

# What a poll found. "unknown" (no such record, or another client's) is each store's own reading.
Outcome = Literal["pending", "slow_down", "approved", "denied", "expired", "redeemed", "unknown"]
# The states of a polled record.
PENDING, APPROVED, DENIED, REDEEMED = "pending", "approved", "denied", "redeemed"
# RFC 8628 3.5: "the interval MUST be increased by 5 seconds for this and all subsequent requests".
SLOW_DOWN_STEP = 5
# Seconds early a poll may come and still count as having waited its interval (RFC 8628 3.5; CIBA Core 7.3).
POLL_LEEWAY = 1


def due_by(now: int) -> int:
    """The latest next-poll time a poll made `now` satisfies (POLL_LEEWAY early is on time)."""
    return now + POLL_LEEWAY


def refusal(state: str, expires_at: int, now: int) -> Outcome:
    """What a poll that did not pass answers, from the record as it was (RFC 8628 3.5; CIBA 11)."""
    if state == REDEEMED:
        return "redeemed"
    if expires_at <= now:
        return "expired"
    if state == APPROVED:
        return "approved"
    if state == DENIED:
        return "denied"
    return "slow_down"


def slowed_due(interval: int, now: int) -> int:
    """When the next poll is due after a slow_down answered `now`: one grown interval later (RFC 8628 3.5)."""
    return now + interval + SLOW_DOWN_STEP
