"""authgate.users: the sign-in throttle's schedule and the user record's field table."""

from __future__ import annotations

from authgate import records
from authgate.users.model import FIELDS, FREE_ATTEMPTS, MAX_DELAY, User, delay_after


def test_the_wait_doubles_after_the_free_attempts_and_is_capped() -> None:
    assert [delay_after(f) for f in range(FREE_ATTEMPTS)] == [0] * FREE_ATTEMPTS
    assert [delay_after(f) for f in range(FREE_ATTEMPTS, FREE_ATTEMPTS + 4)] == [1, 2, 4, 8]
    assert delay_after(50) == MAX_DELAY


def test_a_user_reads_back_from_its_stored_attributes() -> None:
    item = {"tenant_id": {"S": "t"}, "username": {"S": "alice"}, "failed_logins": {"N": "4"},
            "password_hash": {"S": "scrypt$..."}}
    assert User(**records.from_item(FIELDS, item)) == User("t", "alice", 4, 0)
    assert records.to_item(FIELDS, User("t", "alice", 0, 0)._asdict()) == {
        "tenant_id": {"S": "t"}, "username": {"S": "alice"}, "failed_logins": {"N": "0"}}
