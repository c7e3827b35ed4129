"""The one clock of the runtime: tokens, keys, limits, charges and stores read time here.

Production reads `time.time`. Tests and benchmarks install another source with `using(source)`
(a `ManualClock`, say) instead of sleeping, so a stream of requests can cross a key rotation or
a rate-limit window in milliseconds. NumericDate is RFC 7519 section 2.
"""

from __future__ import annotations

import time as _time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_source: Callable[[], float] = _time.time


def now() -> float:
    """Seconds since the epoch, with a fraction (the limiter's windows)."""
    return _source()


def seconds() -> int:
    """Whole seconds since the epoch: a NumericDate (RFC 7519 section 2)."""
    return int(_source())


def millis() -> int:
    """Milliseconds since the epoch (the time part of a ULID)."""
    return int(_source() * 1000)


def iso(seconds: int) -> str:
    """A time as the admin commands print it: ISO 8601 in UTC to the second (2025-06-15T15:06:40Z); "-" for none."""
    return _time.strftime("%Y-%m-%dT%H:%M:%SZ", _time.gmtime(seconds)) if seconds else "-"


def set_clock(source: Callable[[], float] | None) -> None:
    """Read time from `source` from now on (None restores wall time)."""
    global _source
    _source = source or _time.time


@contextmanager
def using(source: Callable[[], float]) -> Iterator[None]:
    """Read time from `source` inside the block, then restore the previous source."""
    previous = _source
    set_clock(source)
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
