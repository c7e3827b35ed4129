"""A quota per fixed window for what is not an API request: one named count per partition (LimitsTable).

    Quota("registration", 3600).spend(f"register#{digest(source_ip)}", "registrations", 20, phase="register")

One conditional UpdateItem adds 1 while the count is below the quota (stores.limits `count`, as
the API limiter's); at the quota nothing is counted and QuotaSpent says when the window resets.
Like the API limiter, a quota fails open when LimitsTable is throttled or down: the request goes
on, and limits.degraded logs and counts it under the quota's name (docs/limits.md). Dynamic
registrations per source address (oauth.clients.registration) and the metadata-document fetch
budgets (oauth.clients.metadata_document.budget) count here.
"""

from __future__ import annotations

from typing import Any

from authgate import clock
from authgate.limits import degraded
from authgate.limits.window import window_at
from authgate.stores.limits import LimitReached, LimitsStore, LimitsUnavailable

# Items outlive their window a little so an operator can still read the last window's counts.
_TTL_GRACE = 3600


class QuotaSpent(Exception):
    """Nothing was counted: the window's quota is spent until `retry_after` seconds from now (RFC 9110 10.2.3)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"quota spent; retry after {retry_after} seconds")
        self.retry_after = retry_after


class Quota:
    """Counts of one kind (`name`, as limits.degraded reports it) in fixed windows of `window` seconds."""

    def __init__(self, name: str, window: int, dynamodb: Any = None) -> None:
        self.name = name
        self.window = window
        self._dynamodb = dynamodb

    def spend(self, partition: str, counter: str, quota: int, *, phase: str | None = None) -> None:
        """Count one more `counter` in `partition`'s current window, or raise QuotaSpent at `quota`.

        Windows are offset by a hash of `phase` (the partition itself by default; limits.window),
        so partitions do not all reset at once."""
        now = clock.now()
        window = window_at(now, self.window, partition if phase is None else phase)
        try:
            LimitsStore(self._dynamodb).count(f"{partition}#{window.start}", {counter: quota}, window.end + _TTL_GRACE)
        except LimitReached:
            raise QuotaSpent(window.reset_after(now)) from None
        except LimitsUnavailable as exc:
            degraded.record(self.name, exc.internal)
