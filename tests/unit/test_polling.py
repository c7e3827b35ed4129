"""polling: how a polled grant answers (RFC 8628 3.5; OpenID Connect CIBA Core 11), apart from storage."""

from __future__ import annotations

import pytest

from authgate.polling import POLL_LEEWAY, SLOW_DOWN_STEP, due_by, refusal, slowed_due


@pytest.mark.parametrize(("state", "expires_at", "outcome"), [
    ("redeemed", 50, "redeemed"),       # used: whatever else holds
    ("approved", 100, "expired"),      # past its expiry, whatever happened
    ("pending", 99, "expired"),
    ("approved", 101, "approved"),     # decided: the decision, even when polled too fast
    ("denied", 101, "denied"),
    ("pending", 101, "slow_down"),     # pending and refused: too fast
])
def test_a_refused_poll_is_answered_from_the_record_as_it_was(state: str, expires_at: int, outcome: str) -> None:
    assert refusal(state, expires_at, 100) == outcome


def test_slow_down_grows_the_interval_from_the_refused_poll_and_a_second_early_is_on_time() -> None:
    """RFC 8628 3.5: +5 s for this and every later poll; the wait counts from the slow_down answer."""
    assert (SLOW_DOWN_STEP, POLL_LEEWAY) == (5, 1)
    assert slowed_due(5, 1000) == 1010
    assert due_by(1000) == 1001
