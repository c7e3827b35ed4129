"""authgate.administration.signing_keys: the keys, one key, and one lifecycle step said in sentences (moto)."""

from __future__ import annotations

import pytest

from authgate.administration.signing_keys import key, keys, rotate_now
from authgate.clock import ManualClock, iso


@pytest.mark.slow  # four RSA keys made
def test_a_step_says_what_moved_and_why_nothing_could(aws: None, clock: ManualClock) -> None:
    first = rotate_now()
    current, waiting = sorted(keys(), key=lambda k: k.state)
    assert (current.state, waiting.state) == ("current", "next")
    waits = (f"next key {waiting.kid} is published but may not sign before {iso(waiting.activates_at)} (JWKS max-age "
             "+ leeway after publication); run `authgate keys rotate` again after that")
    # A new stack: a current key and a next key, which waits.
    assert first.said == (f"created {current.kid}", f"created {waiting.kid}", waits)
    assert key(current.kid) == current and key("#published") is None and key("nosuch") is None
    assert rotate_now().said == (waits,)
    clock.advance(waiting.activates_at - clock.value)
    report, said = rotate_now()
    created = report.created[0]
    assert said == (f"promoted {waiting.kid} ({waiting.alg}) to current; {current.kid} is now previous",
                    f"created {created}")
    clock.advance(10**6)
    retired = rotate_now()
    assert f"retired {current.kid} (every token it signed has expired)" in retired.said


def test_iso_is_the_commands_time() -> None:
    assert (iso(1_750_000_000), iso(0)) == ("2025-06-15T15:06:40Z", "-")
