"""The second factor's own throttle (NIST SP 800-63B 5.2.2; RFC 4226 7.3): how many wrong one-time or recovery
codes an account takes, apart from its password's throttle (authgate.users.model).

Counted on the user's item, in `factor_failures` (consecutive wrong codes since the last right one) and
`factor_failed_at` (when the latest was counted):
- the first LOCK_AFTER - 1 wrong codes cost nothing;
- the LOCK_AFTER-th, and each one after it, locks the factor for LOCK_SECONDS from that failure: while the
  lock holds, no code is checked, the right one neither; when it ends, the next code is checked again (a
  right one is accepted, a wrong one locks it once more);
- at MAX_FAILURES consecutive wrong codes the factor stays locked until an operator clears it
  (`authgate users unlock`, or `reset-mfa`): NIST SP 800-63B 5.2.2 allows at most 100 consecutive failed
  attempts on one account, so guesses are bounded for good, not only paced.
Only a right code resets the count (a right password never does: it is not the factor, and whoever guesses
codes knows it), nor does the end of a lock. stores.factor_attempts applies the rules with conditional writes.
"""

from __future__ import annotations

from typing import NamedTuple

from authgate.records import Field

LOCK_AFTER = 5
LOCK_SECONDS = 15 * 60
MAX_FAILURES = 100


class FactorThrottle(NamedTuple):
    """The second factor's throttle as a user's item holds it."""

    failures: int = 0
    failed_at: int = 0

    def locked(self, now: int) -> bool:
        """True while no code may be checked."""
        return self.failures >= MAX_FAILURES or (self.failures >= LOCK_AFTER and now < self.failed_at + LOCK_SECONDS)


# The throttle's attributes on the user's item.
FIELDS = (
    Field("factor_failures", "N", 0, omit_empty=True),
    Field("factor_failed_at", "N", 0, omit_empty=True),
)
