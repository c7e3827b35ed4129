"""UserStore: scrypt hashes, constant-time verification, throttling then lockout (numbers in users.model)."""

from __future__ import annotations

import threading
from typing import Any

import boto3
import pytest

from authgate.stores.users import UserStore
from authgate.users import model as users
from authgate.users.errors import UserExists
from authgate.users.model import LoginResult
from authgate.users.passwords import check_password, hash_password, needs_rehash
from authgate_cli.local import loaders

# Slow: every test hashes or checks a password at full scrypt cost (N=2**17).
pytestmark = pytest.mark.slow


def test_hash_is_scrypt_with_parameters_and_salt():
    a, b = hash_password("pw"), hash_password("pw")
    assert a != b  # per-user salt
    scheme, n, r, p, _salt, _digest = a.split("$")
    # OWASP Password Storage Cheat Sheet: scrypt N=2^17, r=8, p=1 (128 MiB).
    assert (scheme, n, r, p) == ("scrypt", "131072", "8", "1")
    assert check_password("pw", a) and not check_password("pW", a)
    assert not check_password("pw", "garbage") and not check_password("pw", "md5$x$y$z$a$b")


def stored_hash() -> str:
    (item,) = boto3.client("dynamodb").scan(TableName="UsersTable")["Items"]
    return str(item["password_hash"]["S"])


def test_a_sign_in_rehashes_a_password_of_an_older_cost(aws):
    store = UserStore()
    old = hash_password("alice-password", n=2**14)
    store.put_hash("demo", "alice", old)
    assert store.verify("demo", "alice", "wrong") == LoginResult(False, "invalid", named=alice_id(store))
    assert stored_hash() == old  # a failure proves nothing: the old hash stays
    assert store.verify("demo", "alice", "alice-password") == LoginResult(True, "ok", "alice", alice_id(store), totp=False)
    upgraded = stored_hash()
    assert upgraded.split("$")[:4] == ["scrypt", "131072", "8", "1"] and not needs_rehash(upgraded)
    assert check_password("alice-password", upgraded)
    assert store.verify("demo", "alice", "alice-password") == LoginResult(True, "ok", "alice", alice_id(store), totp=False)
    assert stored_hash() == upgraded  # at the current cost: not rehashed again


def test_password_is_never_stored(aws):
    UserStore().create("demo", "alice", "alice-password")
    items = boto3.client("dynamodb").scan(TableName="UsersTable")["Items"]
    assert "alice-password" not in str(items)
    assert items[0]["password_hash"]["S"].startswith("scrypt$")


def test_verify_right_wrong_and_unknown(aws):
    store = UserStore()
    store.create("demo", "alice", "alice-password")
    assert store.verify("demo", "alice", "alice-password") == LoginResult(True, "ok", "alice", alice_id(store),
                                                                          totp=False, passkeys=False)
    # The account a refusal named (for the audit trail alone): alice's; none for an unknown name or tenant.
    assert store.verify("demo", "alice", "nope") == LoginResult(False, "invalid", named=alice_id(store))
    assert store.verify("demo", "bob", "alice-password") == LoginResult(False, "invalid")
    assert store.verify("acme", "alice", "alice-password") == LoginResult(False, "invalid")  # tenant-scoped
    assert boto3.client("dynamodb").scan(TableName="UsersTable")["Count"] == 1  # no item for unknown users


def test_create_twice_refused_unless_overwrite(aws):
    store = UserStore()
    store.create("demo", "alice", "one")
    with pytest.raises(UserExists):
        store.create("demo", "alice", "two")
    store.create("demo", "alice", "two", overwrite=True)
    assert store.verify("demo", "alice", "two").ok


def test_failures_slow_down_then_lock_then_recover(aws, clock):
    store = UserStore()
    store.create("demo", "alice", "alice-password")
    for _ in range(users.FREE_ATTEMPTS):
        assert store.verify("demo", "alice", "wrong").reason == "invalid"
    # From here every failure opens a window of 2**(failures-3) seconds (1, 2, 4, ... 64 -> 60).
    for failures in range(users.FREE_ATTEMPTS, users.LOCK_AFTER - 1):
        wait = users.delay_after(failures)
        clock.advance(wait - 1)
        if wait > 1:
            assert store.verify("demo", "alice", "alice-password").reason == "throttled"  # even the right one
        clock.advance(1)
        assert store.verify("demo", "alice", "wrong").reason == "invalid"
    assert [users.delay_after(f) for f in range(3, 10)] == [1, 2, 4, 8, 16, 32, 60]
    clock.advance(users.delay_after(users.LOCK_AFTER - 1))
    locking = store.verify("demo", "alice", "wrong")  # the 10th failure locks, and says so (the audit trail's)
    assert (locking.reason, locking.locked_now) == ("invalid", True)
    assert store.get("demo", "alice").locked_until == int(clock.value) + users.LOCK_SECONDS
    clock.advance(users.LOCK_SECONDS - 1)
    assert store.verify("demo", "alice", "alice-password").reason == "locked"
    clock.advance(1)
    assert store.verify("demo", "alice", "alice-password").ok
    assert store.get("demo", "alice").failed_logins == 0


def test_success_resets_the_count(aws, clock):
    store = UserStore()
    store.create("demo", "alice", "alice-password")
    store.verify("demo", "alice", "wrong")
    store.verify("demo", "alice", "wrong")
    assert store.verify("demo", "alice", "alice-password").ok
    assert store.get("demo", "alice").failed_logins == 0


def test_parallel_burst_gets_no_more_tries_than_the_free_ones(aws, clock):
    store = UserStore()
    store.create("demo", "alice", "alice-password")
    results: list[str] = []
    barrier = threading.Barrier(16)

    def guess() -> None:
        barrier.wait()
        results.append(store.verify("demo", "alice", "wrong").reason)

    threads = [threading.Thread(target=guess) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count("invalid") == users.FREE_ATTEMPTS
    assert results.count("throttled") == 16 - users.FREE_ATTEMPTS


def test_seed_loads_users(aws):
    assert loaders.users([{"tenant_id": "demo", "username": "alice", "password": "alice-password"}]) == 1
    assert loaders.users([{"tenant_id": "demo", "username": "alice", "password": "alice-password"}]) == 1  # re-seed
    assert UserStore().verify("demo", "alice", "alice-password").ok


def alice_id(store: Any) -> str:
    """alice's user_id (drawn when the seed wrote her, or at her first sign-in)."""
    user = store.get("demo", "alice")
    assert user is not None and user.user_id.startswith("usr_")
    return str(user.user_id)


def test_a_disabled_user_is_refused_like_a_wrong_password_and_a_reset_forces_a_change(aws):
    store = UserStore()
    store.create("demo", "alice", "alice-password", name="Alice", email="alice@demo.example")
    store.set_disabled("demo", "alice", True)
    assert store.verify("demo", "alice", "alice-password") == LoginResult(False, "disabled", named=alice_id(store))
    assert store.get("demo", "alice").failed_logins == 0  # refused unchecked: nothing counted
    store.set_disabled("demo", "alice", False)
    store.reset_password("demo", "alice", "temporary-password")
    assert store.verify("demo", "alice", "alice-password") == LoginResult(False, "invalid", named=alice_id(store))
    assert store.verify("demo", "alice", "temporary-password") == LoginResult(True, "ok", "alice", user_id=alice_id(store), must_change_password=True, generation=2, totp=False, passkeys=False)
    store.change_password("demo", "alice", "new-password-1")
    # Disable, reset and change each ended the sessions: the third generation signs in now.
    assert store.verify("demo", "alice", "new-password-1") == LoginResult(True, "ok", "alice", user_id=alice_id(store),
                                                                          generation=3, totp=False, passkeys=False)
    user = store.get("demo", "alice")
    assert (user.name, user.email, user.must_change_password) == ("Alice", "alice@demo.example", False)


def test_a_federated_only_user_has_no_password_to_sign_in_with_until_one_is_set(aws):
    """users.model.User.federated_only: refused as a disabled account is (unchecked, one scrypt all the same), until
    an operator's reset gives the account a password."""
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.users.linked_identities import LinkedIdentity

    store = UserStore()
    dana = users.User("demo", "dana", 0, 0, user_id="usr_dana", federated_only=True)
    LinkedIdentityStore().provision(dana, LinkedIdentity("demo", "https://idp.example", "00u1", "usr_dana", "dana", 1))
    for typed in ("", "!", "dana-password"):
        assert store.verify("demo", "dana", typed) == LoginResult(False, "no_password", named="usr_dana")
    assert store.get("demo", "dana") == dana  # refused unchecked: nothing counted
    store.reset_password("demo", "dana", "temporary-password")
    assert store.get("demo", "dana").federated_only is False
    assert store.verify("demo", "dana", "temporary-password") == LoginResult(
        True, "ok", "dana", user_id="usr_dana", must_change_password=True, generation=1, totp=False, passkeys=False)


def test_a_tenants_users_come_a_page_at_a_time_by_the_start_of_their_username(aws: None) -> None:
    from authgate.stores.users import UserStore

    store = UserStore()
    for name in ("ann", "bea", "ben", "bob", "cy"):
        store.put_hash("t1", name, "hash", overwrite=False)
    store.put_hash("t2", "bee", "hash", overwrite=False)
    users, after = store.page("t1", limit=2)
    assert ([u.username for u in users], after) == (["ann", "bea"], "bea")
    users, after = store.page("t1", after=after, limit=2)
    assert ([u.username for u in users], after) == (["ben", "bob"], "bob")
    users, after = store.page("t1", after=after, limit=2)
    assert ([u.username for u in users], after) == (["cy"], "")
    assert [u.username for u in store.page("t1", prefix="be", limit=10)[0]] == ["bea", "ben"]
    assert [u.username for u in store.page("t1", prefix="b", limit=3)[0]] == ["bea", "ben", "bob"]
    assert store.page("t1", prefix="b", limit=3)[1] == ""  # no page follows that would be empty


def test_a_user_is_found_by_user_id_in_its_tenant_only(aws: None) -> None:
    from authgate.stores.users import UserStore

    store = UserStore()
    store.put_hash("t1", "ann", "hash", overwrite=False, user_id="usr_ann")
    found = store.by_user_id("t1", "usr_ann")
    assert found is not None and found.username == "ann"
    assert store.by_user_id("t2", "usr_ann") is None and store.by_user_id("t1", "usr_nobody") is None
    assert store.by_user_id("t1", "") is None
