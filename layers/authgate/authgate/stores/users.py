"""UsersTable: (tenant_id, username) -> scrypt password hash and sign-in throttle state.

The rules are authgate.users (model: the throttle; passwords: the hash). Each attempt first
reserves itself with one conditional write that also moves the window, so a burst of parallel
guesses gets no more tries than a sequence would. Unknown users, refused attempts and wrong
passwords look the same to the caller and cost one scrypt each.
"""

from __future__ import annotations

from typing import Any

from authgate import clock, records
from authgate.records import n, s
from authgate.stores.base import TableStore
from authgate.stores.batch import BatchRead, Pending
from authgate.stores.faults import condition_failed
from authgate.users.errors import UserExists
from authgate.users.model import (
    FIELDS,
    FREE_ATTEMPTS,
    LOCK_AFTER,
    LOCK_SECONDS,
    LoginResult,
    User,
    delay_after,
    new_user_id,
)
from authgate.users.passwords import check_password, dummy_hash, hash_password, needs_rehash

# The stored record: a User's fields and what only the store sees.
ITEM_FIELDS = (*FIELDS, records.Field("password_hash", "S", "", public=False))


# No username is longer (the admin command refuses longer ones); a longer key is never read.
MAX_USERNAME = 256


def key(tenant_id: str, username: str) -> dict[str, Any]:
    return {"tenant_id": s(tenant_id), "username": s(username)}


class UserStore(TableStore):
    """UsersTable: (tenant_id, username) -> password hash and throttling state."""

    table_setting = "users"

    def create(self, tenant_id: str, username: str, password: str, *, overwrite: bool = False,
               **profile: Any) -> User:
        """Add a user (or replace one when `overwrite`); the password is stored as scrypt only."""
        return self.put_hash(tenant_id, username, hash_password(password), overwrite=overwrite, **profile)

    def put_hash(self, tenant_id: str, username: str, password_hash: str, *, overwrite: bool = True,
                 **profile: Any) -> User:
        """Add (or replace) a user whose password is already hashed (`hash_password`); `profile` sets
        User fields (user_id, name, email, email_verified); a new user_id is drawn when none is given."""
        now = clock.seconds()
        user = User(tenant_id, username, 0, 0, **{"created_at": now, "updated_at": now, **profile})
        if not user.user_id:
            user = user._replace(user_id=new_user_id())
        item = records.to_item(ITEM_FIELDS, {**user._asdict(), "password_hash": password_hash})
        self.upsert(item, "create", condition=None if overwrite else "attribute_not_exists(username)",
                    refused=lambda: UserExists(f"user {username!r} already exists in tenant {tenant_id!r}"))
        return user

    def prefetch(self, reads: BatchRead, tenant_id: str, username: str) -> Pending | None:
        """Register the user's record in a request's batch read (None: a key no user can have)."""
        if not tenant_id or not username or len(username) > MAX_USERNAME:
            return None
        return reads.add(self.table, key(tenant_id, username))

    @staticmethod
    def found(pending: Pending | None) -> User | None:
        """The user a prefetched read found."""
        item = pending.item if pending is not None else None
        return User(**records.from_item(FIELDS, item)) if item else None

    def get(self, tenant_id: str, username: str) -> User | None:
        item = self.find(key(tenant_id, username))
        return User(**records.from_item(FIELDS, item)) if item else None

    def end_sessions(self, tenant_id: str, username: str, at: int) -> bool:
        """Every session and grant of the user's sign-ins before `at` is dead (sessions_valid_after); False when
        there is no such user."""
        from botocore.exceptions import ClientError

        try:
            with self.faults("end_sessions"):
                self.db.update_item(TableName=self.table, Key=key(tenant_id, username),
                                    UpdateExpression="SET sessions_valid_after = :at",
                                    ConditionExpression="attribute_exists(username)",
                                    ExpressionAttributeValues={":at": n(at)})
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            return False
        return True

    def verify(self, tenant_id: str, username: str, password: str) -> LoginResult:
        """Check a password under the throttling rules of authgate.users.model."""
        from botocore.exceptions import ClientError

        now = clock.seconds()
        item_key = key(tenant_id, username)
        try:
            with self.faults("reserve"):
                # The reservation: refuse while locked or inside the wait window; otherwise count
                # this attempt as a failure up front and close the window for one second, so
                # parallel attempts cannot all slip through before any failure is recorded.
                reserved = self.db.update_item(
                    TableName=self.table, Key=item_key,
                    UpdateExpression="SET failed_logins = if_not_exists(failed_logins, :zero) + :one, "
                                     "next_attempt_at = :soon",
                    ConditionExpression="attribute_exists(username) "
                                        "AND (attribute_not_exists(locked_until) OR locked_until <= :now) "
                                        "AND (attribute_not_exists(failed_logins) OR failed_logins < :free "
                                        "OR attribute_not_exists(next_attempt_at) OR next_attempt_at <= :now)",
                    ExpressionAttributeValues={":zero": n(0), ":one": n(1), ":now": n(now),
                                               ":soon": n(now + 1), ":free": n(FREE_ATTEMPTS)},
                    ReturnValues="ALL_NEW",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )["Attributes"]
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            check_password(password, dummy_hash())
            old = exc.response.get("Item")
            if not old:
                return LoginResult(False, "invalid")
            locked = records.from_item(FIELDS, old)["locked_until"] > now
            return LoginResult(False, "locked" if locked else "throttled")

        stored = records.from_item(ITEM_FIELDS, reserved)
        if check_password(password, stored["password_hash"]):
            # A record written before user ids existed gets its id now; of two concurrent
            # sign-ins the first write's id stays (if_not_exists), and both read it back.
            update = "SET failed_logins = :zero, user_id = if_not_exists(user_id, :uid)"
            values = {":zero": n(0), ":uid": s(stored["user_id"] or new_user_id())}
            if needs_rehash(stored["password_hash"]):
                # The same write: the password, known good now, at the current cost.
                update, values = update + ", password_hash = :hash", {**values, ":hash": s(hash_password(password))}
            with self.faults("success"):
                written = self.db.update_item(TableName=self.table, Key=item_key,
                                              UpdateExpression=update + " REMOVE next_attempt_at, locked_until",
                                              ExpressionAttributeValues=values, ReturnValues="UPDATED_NEW")
            return LoginResult(True, "ok", subject=username,
                               user_id=records.string(written.get("Attributes") or {}, "user_id", stored["user_id"]))

        failures = int(stored["failed_logins"])
        with self.faults("failure"):
            if failures >= LOCK_AFTER:
                self.db.update_item(TableName=self.table, Key=item_key,
                                    UpdateExpression="SET locked_until = :until, failed_logins = :zero "
                                                     "REMOVE next_attempt_at",
                                    ExpressionAttributeValues={":until": n(now + LOCK_SECONDS), ":zero": n(0)})
            else:
                # Only ever push the window later: a slow attempt that reserved early must not
                # reopen a window that later reservations closed (that let a parallel guess in).
                try:
                    self.db.update_item(TableName=self.table, Key=item_key,
                                        UpdateExpression="SET next_attempt_at = :next",
                                        ConditionExpression="attribute_not_exists(next_attempt_at) "
                                                            "OR next_attempt_at < :next",
                                        ExpressionAttributeValues={":next": n(now + delay_after(failures))})
                except ClientError as exc:
                    if not condition_failed(exc):
                        raise
        return LoginResult(False, "invalid")
