"""UserFactorStore: TOTP enrolment, a code accepted once (RFC 6238 5.2), recovery codes consumed once, failures
toward the account's lock, secrets sealed at rest, and the operator's reset."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import boto3
import pyotp
import pytest

from authgate.clock import ManualClock
from authgate.stores.user_factors import PENDING_SECONDS, UserFactorStore
from authgate.users import model as users
from authgate.users.errors import NoPendingEnrolment, UserNotFound
from authgate.users.model import LoginResult, SecondFactors


@pytest.fixture
def store(aws: None, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> Iterator[UserFactorStore]:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "test-session-secret-0123456789abcdef")
    caches.reset()
    factors = UserFactorStore()
    factors.put_hash("demo", "bob", "not-a-password-hash")  # no password is checked here
    yield factors


def user_id(store: UserFactorStore) -> str:
    """bob's id, which a successful sign-in reports (LoginResult.user_id)."""
    user = store.get("demo", "bob")
    assert user is not None
    return user.user_id


def now(clock: ManualClock) -> int:
    return int(clock())


def raw() -> dict:
    return boto3.client("dynamodb").get_item(TableName="UsersTable", Key={
        "tenant_id": {"S": "demo"}, "username": {"S": "bob"}})["Item"]


def enrolled(store: UserFactorStore, clock: ManualClock) -> tuple[str, tuple[str, ...]]:
    secret = store.start_totp("demo", "bob")
    codes = store.confirm_totp("demo", "bob", pyotp.TOTP(secret).at(now(clock)))
    assert codes is not None
    clock.advance(30)  # the confirming code's step is used; the next step's code is not
    return secret, codes


def test_enrolment_is_confirmed_by_a_first_code(store: UserFactorStore, clock: ManualClock) -> None:
    assert store.factors("demo", "bob") == SecondFactors(False, False, 0, 0)
    secret = store.start_totp("demo", "bob")
    assert store.factors("demo", "bob") == SecondFactors(False, True, 0, 0)
    assert store.confirm_totp("demo", "bob", "000000" if pyotp.TOTP(secret).now() != "000000" else "111111") is None
    codes = store.confirm_totp("demo", "bob", pyotp.TOTP(secret).at(now(clock)))
    assert codes is not None and len(codes) == 10
    assert store.factors("demo", "bob") == SecondFactors(True, False, 10, 0)
    item = raw()
    # At rest: the secret sealed (never in plain text), the recovery codes as hashes only.
    assert item["totp_secret"]["S"].startswith("v1.") and secret not in str(item)
    assert not any(c in str(item) or c.replace("-", "") in str(item) for c in codes)
    assert "totp_pending" not in item and int(item["totp_last_step"]["N"]) == now(clock) // 30


def test_a_confirmation_needs_a_live_pending_enrolment(store: UserFactorStore, clock: ManualClock) -> None:
    with pytest.raises(NoPendingEnrolment):
        store.confirm_totp("demo", "bob", "123456")
    secret = store.start_totp("demo", "bob")
    clock.advance(PENDING_SECONDS + 1)
    with pytest.raises(NoPendingEnrolment):
        store.confirm_totp("demo", "bob", pyotp.TOTP(secret).at(now(clock)))
    with pytest.raises(UserNotFound):
        store.start_totp("demo", "nobody")


def test_a_code_is_accepted_once_and_never_an_older_step(store: UserFactorStore, clock: ManualClock) -> None:
    secret, _ = enrolled(store, clock)
    started = now(clock)
    code = pyotp.TOTP(secret).at(started)
    assert store.verify_totp("demo", "bob", code) == LoginResult(True, "ok", subject="bob", user_id=user_id(store), totp=True)
    clock.advance(2)  # past the throttle's one-second window, same step
    assert store.verify_totp("demo", "bob", code) == LoginResult(False, "invalid")  # replayed within its window
    clock.advance(1)
    earlier = pyotp.TOTP(secret).at(started - 30)  # still in the window, but before the step used
    assert store.verify_totp("demo", "bob", earlier) == LoginResult(False, "invalid")
    clock.advance(30)
    assert store.verify_totp("demo", "bob", pyotp.TOTP(secret).at(now(clock))).ok


def test_of_two_concurrent_uses_of_one_code_exactly_one_wins(store: UserFactorStore, clock: ManualClock) -> None:
    secret, _ = enrolled(store, clock)
    code = pyotp.TOTP(secret).at(now(clock))
    results: list[LoginResult] = []
    barrier = threading.Barrier(2)

    def use() -> None:
        barrier.wait()
        results.append(UserFactorStore().verify_totp("demo", "bob", code))

    threads = [threading.Thread(target=use) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # The loser is either refused by the throttle's one-second window or by the step's condition.
    assert sorted(r.ok for r in results) == [False, True]


def test_wrong_codes_count_toward_the_accounts_lock(store: UserFactorStore, clock: ManualClock) -> None:
    secret, _ = enrolled(store, clock)
    for _ in range(users.LOCK_AFTER + 1):
        clock.advance(users.MAX_DELAY)
        store.verify_totp("demo", "bob", "000000" if pyotp.TOTP(secret).at(now(clock)) != "000000" else "111111")
    clock.advance(1)
    assert store.verify_totp("demo", "bob", pyotp.TOTP(secret).at(now(clock))) == LoginResult(False, "locked")
    assert store.verify("demo", "bob", "any password") == LoginResult(False, "locked")  # the same lock


def test_a_recovery_code_is_consumed_by_its_use(store: UserFactorStore, clock: ManualClock) -> None:
    _, codes = enrolled(store, clock)
    assert store.verify_recovery_code("demo", "bob", codes[3].upper()) == LoginResult(True, "ok", subject="bob", user_id=user_id(store), totp=True)
    clock.advance(2)
    assert store.verify_recovery_code("demo", "bob", codes[3]) == LoginResult(False, "invalid")
    clock.advance(2)
    assert store.verify_recovery_code("demo", "bob", "aaaa-bbbb-cccc-dddd") == LoginResult(False, "invalid")
    factors = store.factors("demo", "bob")
    assert factors is not None and factors.recovery_codes_left == 9


def test_no_factor_is_no_second_factor(store: UserFactorStore, clock: ManualClock) -> None:
    assert store.verify_totp("demo", "bob", pyotp.TOTP(pyotp.random_base32()).now()) == LoginResult(False, "invalid")
    clock.advance(2)
    assert store.verify_recovery_code("demo", "bob", "aaaa-bbbb-cccc-dddd") == LoginResult(False, "invalid")
    assert store.verify_totp("demo", "nobody", "123456") == LoginResult(False, "invalid")


def test_reset_removes_every_factor_and_ends_sessions(store: UserFactorStore, clock: ManualClock) -> None:
    enrolled(store, clock)
    store.start_totp("demo", "bob")
    assert store.reset("demo", "bob") == now(clock)
    assert store.factors("demo", "bob") == SecondFactors(False, False, 0, now(clock))
    assert not {"totp_secret", "totp_pending", "totp_last_step", "recovery_codes"} & set(raw())
    with pytest.raises(UserNotFound):
        store.reset("demo", "nobody")
