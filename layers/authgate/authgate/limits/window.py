"""Fixed windows: which window an instant falls in and how long until it resets.

Windows of one partition are offset by a stable hash of the partition so that every tenant's
window does not end at the same instant (draft-ietf-httpapi-ratelimit-headers-11 section 8.5:
clients told the same reset time come back together).
"""

from __future__ import annotations

import hashlib
import math
from typing import NamedTuple

from authgate.caches import cached


class Window(NamedTuple):
    start: int     # epoch seconds, inclusive
    length: int    # seconds

    @property
    def end(self) -> int:
        return self.start + self.length

    def reset_after(self, now: float) -> int:
        """Whole seconds until this window ends, rounded up: never earlier than the reset."""
        return max(1, math.ceil(self.end - now))


@cached(maxsize=4096)
def offset(partition: str, length: int) -> int:
    """A stable per-partition phase in [0, length)."""
    digest = hashlib.blake2b(partition.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % length


def window_at(now: float, length: int, partition: str = "") -> Window:
    """The fixed window of `partition` that contains `now`."""
    phase = offset(partition, length) if partition else 0
    start = math.floor((now - phase) / length) * length + phase
    return Window(start=int(start), length=length)
