"""The clock token issue, validation and key rotation read: injectable, so tests drive time.

Production reads `time.time`. Tests and benchmarks swap the source with `use(source)` instead
of sleeping, so a stream of requests can cross two key rotations in milliseconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_source: Callable[[], float] = time.time


def now() -> int:
    """Seconds since the epoch (NumericDate, RFC 7519 section 2)."""
    return int(_source())


@contextmanager
def use(source: Callable[[], float]) -> Iterator[None]:
    """Read time from `source` inside the block."""
    global _source
    previous, _source = _source, source
    try:
        yield
    finally:
        _source = previous
