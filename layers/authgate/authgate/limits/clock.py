"""The limiter's clock: wall time by default, replaceable so tests and the emulator can move time."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_now: Callable[[], float] = time.time


def now() -> float:
    """Seconds since the epoch, as the limiter sees them."""
    return _now()


def set_clock(clock: Callable[[], float] | None) -> None:
    """Use `clock` for every limiter decision (None restores wall time)."""
    global _now
    _now = clock or time.time


@contextmanager
def using(clock: Callable[[], float]) -> Iterator[None]:
    """Run a block with `clock` as the limiter's time, then restore the previous clock."""
    previous = _now
    set_clock(clock)
    try:
        yield
    finally:
        set_clock(previous)


class ManualClock:
    """A clock that only moves when told to (no sleeps in tests)."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.value = start

    def __call__(self) -> float:
        return self.value

    def advance(self, seconds: float) -> None:
        self.value += seconds
