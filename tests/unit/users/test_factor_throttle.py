"""The second factor's throttle rules: a lock from the LOCK_AFTER-th wrong code, LOCK_SECONDS from the latest, and for
good at MAX_FAILURES (NIST SP 800-63B 5.2.2)."""

from __future__ import annotations

from authgate.users.factor_throttle import LOCK_AFTER, LOCK_SECONDS, MAX_FAILURES, FactorThrottle


def test_the_first_wrong_codes_cost_nothing() -> None:
    assert not FactorThrottle().locked(0)
    assert not FactorThrottle(LOCK_AFTER - 1, 1_000).locked(1_000)


def test_from_the_lock_after_th_each_wrong_code_locks_for_lock_seconds() -> None:
    for failures in (LOCK_AFTER, LOCK_AFTER + 1, MAX_FAILURES - 1):
        throttle = FactorThrottle(failures, 1_000)
        assert throttle.locked(1_000) and throttle.locked(1_000 + LOCK_SECONDS - 1)
        assert not throttle.locked(1_000 + LOCK_SECONDS)


def test_max_failures_lock_for_good() -> None:
    assert FactorThrottle(MAX_FAILURES, 1_000).locked(1_000 + 10 * 365 * 86_400)
    assert (LOCK_AFTER, LOCK_SECONDS, MAX_FAILURES) == (5, 15 * 60, 100)
