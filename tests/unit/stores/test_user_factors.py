"""UserFactorStore: TOTP enrolment, secrets sealed at rest, and the operator's reset (a code's check is
stores.factor_attempts: test_factor_attempts.py)."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pyotp
import pytest

from authgate.clock import ManualClock
from authgate.stores.user_factors import UserFactorStore
from authgate.users.errors import NoPendingEnrolment, UserNotFound
from authgate.users.model import SecondFactors
from authgate.users.totp import PENDING_SECONDS


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


def test_reset_removes_every_factor_and_ends_sessions(store: UserFactorStore, clock: ManualClock) -> None:
    enrolled(store, clock)
    counted(store)
    store.start_totp("demo", "bob")
    assert store.reset("demo", "bob") == now(clock)
    assert store.factors("demo", "bob") == SecondFactors(False, False, 0, now(clock))
    assert not {"totp_secret", "totp_pending", "totp_last_step", "recovery_codes", "factor_failures",
                "factor_failed_at"} & set(raw())
    with pytest.raises(UserNotFound):
        store.reset("demo", "nobody")


def counted(store: UserFactorStore, failures: int = 100) -> None:
    """bob's second factor locked for good by `failures` wrong codes (users.factor_throttle)."""
    store.db.update_item(TableName=store.table, Key={"tenant_id": {"S": "demo"}, "username": {"S": "bob"}},
                         UpdateExpression="SET factor_failures = :f, factor_failed_at = :t",
                         ExpressionAttributeValues={":f": {"N": str(failures)}, ":t": {"N": "1"}})


def test_a_new_or_removed_factor_takes_no_count_of_wrong_codes_with_it(store: UserFactorStore,
                                                                        clock: ManualClock) -> None:
    """The count is of guesses at the factor the person holds: removing it (which took a proof) or confirming a new
    one starts afresh."""
    enrolled(store, clock)
    counted(store)
    store.remove_totp("demo", "bob")
    assert not {"factor_failures", "factor_failed_at"} & set(raw())
    counted(store)
    secret = store.start_totp("demo", "bob")
    assert {"factor_failures", "factor_failed_at"} <= set(raw())
    assert store.confirm_totp("demo", "bob", pyotp.TOTP(secret).at(now(clock))) is not None
    assert not {"factor_failures", "factor_failed_at"} & set(raw())
