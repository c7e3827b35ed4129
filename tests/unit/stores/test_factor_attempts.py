"""FactorAttempts: every check of a code under the second factor's own throttle (users.factor_throttle): a code
accepted once (RFC 6238 5.2), a recovery code consumed once, wrong codes locking the factor and not the account, no
right password resetting their count, bursts no better than sequences, and the lock's end."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import boto3
import pyotp
import pytest

from authgate import records
from authgate.clock import ManualClock
from authgate.stores.factor_attempts import FactorAttempts
from authgate.stores.user_factors import UserFactorStore
from authgate.users.factor_throttle import LOCK_AFTER, LOCK_SECONDS, MAX_FAILURES
from authgate.users.model import LoginResult
from authgate.users.passwords import hash_password

# A cheap hash: checking it costs nothing, and only a right password's success rewrites it at full cost.
PASSWORD = "bob-password"


@pytest.fixture
def attempts(aws: None, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> Iterator[FactorAttempts]:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "test-session-secret-0123456789abcdef")
    caches.reset()
    UserFactorStore().put_hash("demo", "bob", hash_password(PASSWORD, n=2**4))
    yield FactorAttempts()


def now(clock: ManualClock) -> int:
    return int(clock())


def raw() -> dict[str, Any]:
    item: dict[str, Any] = boto3.client("dynamodb").get_item(TableName="UsersTable", Key={
        "tenant_id": {"S": "demo"}, "username": {"S": "bob"}})["Item"]
    return item


def counts() -> tuple[int, int]:
    """(the password's failures, the factor's) on bob's item."""
    item = raw()
    return records.number(item, "failed_logins"), records.number(item, "factor_failures")


def user_id() -> str:
    return records.string(raw(), "user_id")


def enrolled(clock: ManualClock) -> tuple[pyotp.TOTP, tuple[str, ...]]:
    store = UserFactorStore()
    secret = store.start_totp("demo", "bob")
    codes = store.confirm_totp("demo", "bob", pyotp.TOTP(secret).at(now(clock)))
    assert codes is not None
    clock.advance(30)  # the confirming code's step is used; the next step's code is not
    return pyotp.TOTP(secret), codes


def wrong(totp: pyotp.TOTP, clock: ManualClock) -> str:
    return "000000" if totp.at(now(clock)) != "000000" else "111111"


def test_a_code_is_accepted_once_and_never_an_older_step(attempts: FactorAttempts, clock: ManualClock) -> None:
    totp, _ = enrolled(clock)
    started = now(clock)
    code = totp.at(started)
    assert attempts.verify_code("demo", "bob", code) == LoginResult(True, "ok", subject="bob", user_id=user_id(),
                                                                    totp=True)
    assert attempts.verify_code("demo", "bob", code) == LoginResult(False, "invalid")  # replayed within its window
    earlier = totp.at(started - 30)  # still in the window, but before the step used
    assert attempts.verify_code("demo", "bob", earlier) == LoginResult(False, "invalid")
    clock.advance(30)
    assert attempts.verify_code("demo", "bob", totp.at(now(clock))).ok
    assert counts() == (0, 0)  # a right code resets the factor's count; the password's it never touches


def test_of_two_concurrent_uses_of_one_code_exactly_one_wins(attempts: FactorAttempts, clock: ManualClock) -> None:
    totp, _ = enrolled(clock)
    code = totp.at(now(clock))
    results: list[LoginResult] = []
    barrier = threading.Barrier(2)

    def use() -> None:
        barrier.wait()
        results.append(FactorAttempts().verify_code("demo", "bob", code))

    threads = [threading.Thread(target=use) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # The loser is refused by the step's condition, or by the count the winner's reservation moved.
    assert sorted(r.ok for r in results) == [False, True]


def test_a_recovery_code_is_consumed_by_its_use(attempts: FactorAttempts, clock: ManualClock) -> None:
    _, codes = enrolled(clock)
    assert attempts.verify_code("demo", "bob", codes[3].upper()).ok
    assert attempts.verify_code("demo", "bob", codes[3]) == LoginResult(False, "invalid")
    assert attempts.verify_code("demo", "bob", "aaaa-bbbb-cccc-dddd") == LoginResult(False, "invalid")
    factors = UserFactorStore().factors("demo", "bob")
    assert factors is not None and factors.recovery_codes_left == 9


def test_no_factor_is_no_second_factor(attempts: FactorAttempts, clock: ManualClock) -> None:
    assert attempts.verify_code("demo", "bob", pyotp.TOTP(pyotp.random_base32()).now()) == LoginResult(False, "invalid")
    assert attempts.verify_code("demo", "bob", "aaaa-bbbb-cccc-dddd") == LoginResult(False, "invalid")
    assert attempts.verify_code("demo", "nobody", "123456") == LoginResult(False, "invalid")


def test_wrong_codes_lock_the_factor_for_lock_seconds_and_not_the_account(attempts: FactorAttempts,
                                                                         clock: ManualClock) -> None:
    totp, codes = enrolled(clock)
    for _ in range(LOCK_AFTER):
        assert attempts.verify_code("demo", "bob", wrong(totp, clock)) == LoginResult(False, "invalid")
    assert counts() == (0, LOCK_AFTER)
    clock.advance(LOCK_SECONDS - 1)
    # Locked: nothing is checked, the right code and a recovery code neither, and nothing more is counted.
    assert attempts.verify_code("demo", "bob", totp.at(now(clock))) == LoginResult(False, "factor_locked")
    assert attempts.verify_code("demo", "bob", codes[0]) == LoginResult(False, "factor_locked")
    assert counts() == (0, LOCK_AFTER)
    clock.advance(1)
    assert attempts.verify_code("demo", "bob", totp.at(now(clock))).ok
    assert counts() == (0, 0)


def test_after_a_lock_each_wrong_code_locks_again(attempts: FactorAttempts, clock: ManualClock) -> None:
    totp, _ = enrolled(clock)
    for _ in range(LOCK_AFTER):
        attempts.verify_code("demo", "bob", wrong(totp, clock))
    clock.advance(LOCK_SECONDS)
    assert attempts.verify_code("demo", "bob", wrong(totp, clock)) == LoginResult(False, "invalid")
    assert attempts.verify_code("demo", "bob", totp.at(now(clock))) == LoginResult(False, "factor_locked")
    assert counts() == (0, LOCK_AFTER + 1)


def test_at_max_failures_the_factor_stays_locked_until_an_operator_unlocks_it(attempts: FactorAttempts,
                                                                             clock: ManualClock) -> None:
    """NIST SP 800-63B 5.2.2: at most 100 consecutive failed attempts on one account."""
    from authgate.stores.users import UserStore

    totp, _ = enrolled(clock)
    attempts.db.update_item(TableName=attempts.table, Key={"tenant_id": {"S": "demo"}, "username": {"S": "bob"}},
                            UpdateExpression="SET factor_failures = :f, factor_failed_at = :t",
                            ExpressionAttributeValues={":f": {"N": str(MAX_FAILURES - 1)}, ":t": {"N": "1"}})
    assert attempts.verify_code("demo", "bob", wrong(totp, clock)) == LoginResult(False, "invalid")
    clock.advance(365 * 86_400)
    assert attempts.verify_code("demo", "bob", totp.at(now(clock))) == LoginResult(False, "factor_locked")
    UserStore().unlock("demo", "bob")  # authgate users unlock
    assert not {"factor_failures", "factor_failed_at"} & set(raw())
    assert attempts.verify_code("demo", "bob", totp.at(now(clock))).ok


def test_a_burst_of_guesses_gets_no_more_checks_than_a_sequence(attempts: FactorAttempts, clock: ManualClock) -> None:
    totp, _ = enrolled(clock)
    results: list[str] = []
    barrier = threading.Barrier(12)

    def guess() -> None:
        barrier.wait()
        results.append(FactorAttempts().verify_code("demo", "bob", wrong(totp, clock)).reason)

    threads = [threading.Thread(target=guess) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["factor_locked"] * (12 - LOCK_AFTER) + ["invalid"] * LOCK_AFTER
    assert counts() == (0, LOCK_AFTER)


@pytest.mark.slow
def test_beside_the_password_each_throttle_counts_its_own_credential(attempts: FactorAttempts,
                                                                     clock: ManualClock) -> None:
    """A wrong password counts on the password's throttle whatever the code; a right password beside a wrong code
    counts on the factor's and resets the password's: a right password never resets the factor's count."""
    totp, _ = enrolled(clock)
    assert attempts.verify_with_code("demo", "bob", "not-the-password", totp.at(now(clock))).reason == "invalid"
    assert counts() == (1, 0)
    assert attempts.verify_with_code("demo", "bob", PASSWORD, wrong(totp, clock)).reason == "second_factor_failed"
    assert counts() == (0, 1)
    attempts.verify("demo", "bob", "not-the-password")  # the password's throttle alone, as the sign-in form counts
    assert counts() == (1, 1)


@pytest.mark.slow  # a refusal's scrypt is at full cost
def test_beside_the_password_a_locked_factor_is_refused_whatever_the_password(attempts: FactorAttempts,
                                                                              clock: ManualClock) -> None:
    """Nothing is checked while the factor is locked (the refusal costs a scrypt, as a wrong password's check), so
    the answer says nothing about the password; nothing is counted either."""
    totp, _ = enrolled(clock)
    for _ in range(LOCK_AFTER):
        attempts.verify_with_code("demo", "bob", PASSWORD, wrong(totp, clock))
    right = attempts.verify_with_code("demo", "bob", PASSWORD, totp.at(now(clock)))
    other = attempts.verify_with_code("demo", "bob", "not-the-password", totp.at(now(clock)))
    assert right == other == LoginResult(False, "factor_locked", named=right.named) and right.named.startswith("usr_")
    assert counts() == (0, LOCK_AFTER)


def test_the_steps_judgement_holds_on_the_count_it_read(attempts: FactorAttempts, clock: ManualClock) -> None:
    """judged_code: a wrong code counted at once (one write); a right one's acceptance on condition that the count is
    still the one read; a locked factor refused with nothing written."""
    totp, _ = enrolled(clock)
    item = raw()
    assert attempts.judged_code("demo", "bob", item, wrong(totp, clock)) is None
    assert counts() == (0, 1)
    accepted = attempts.judged_code("demo", "bob", item, totp.at(now(clock)))  # judged on the item before the failure
    assert accepted is not None
    with pytest.raises(attempts.db.exceptions.TransactionCanceledException):
        attempts.db.transact_write_items(TransactItems=[accepted])
    fresh = attempts.judged_code("demo", "bob", raw(), totp.at(now(clock)))
    assert fresh is not None
    attempts.db.transact_write_items(TransactItems=[fresh])
    assert counts() == (0, 0)
    for _ in range(LOCK_AFTER):
        attempts.counted("demo", "bob")
    before = raw()
    clock.advance(30)
    assert attempts.judged_code("demo", "bob", before, totp.at(now(clock))) is None
    assert raw() == before
