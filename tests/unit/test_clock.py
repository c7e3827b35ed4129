"""authgate.clock: one time source for the runtime, replaceable in a block."""

from __future__ import annotations

import time

from authgate import clock
from authgate.clock import ManualClock


def test_wall_time_by_default() -> None:
    before = time.time()
    assert before - 1 <= clock.now() <= time.time() + 1
    assert isinstance(clock.seconds(), int)


def test_a_manual_clock_moves_only_when_told_and_is_restored_after_the_block() -> None:
    manual = ManualClock(1_750_000_000.75)
    with clock.using(manual):
        assert (clock.now(), clock.seconds(), clock.millis()) == (1_750_000_000.75, 1_750_000_000, 1_750_000_000_750)
        manual.advance(0.5)
        assert clock.seconds() == 1_750_000_001
    assert abs(clock.now() - time.time()) < 5


def test_the_previous_source_comes_back_even_after_an_error() -> None:
    outer, inner = ManualClock(10.0), ManualClock(20.0)
    with clock.using(outer):
        try:
            with clock.using(inner):
                raise RuntimeError
        except RuntimeError:
            pass
        assert clock.now() == 10.0
