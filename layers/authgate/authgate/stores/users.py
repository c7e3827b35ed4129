"""UsersTable: (tenant_id, username) -> scrypt password hash and sign-in throttle state.

The rules are authgate.users (model: the throttle; passwords: the hash). Each attempt first
reserves itself with one conditional write that also moves the window, so a burst of parallel
guesses gets no more tries than a sequence would. Unknown users, refused attempts and wrong
passwords look the same to the caller and cost one scrypt each.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from authgate import clock, records
from authgate.records import n, s
from authgate.stores.base import TableStore
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
)
from authgate.users.passwords import check_password, dummy_hash, hash_password, needs_rehash

# The stored record: a User's fields and what only the store sees.
ITEM_FIELDS = (*FIELDS, records.Field("password_hash", "S", "", public=False), records.Field("created_at", "N", 0))


class Success(NamedTuple):
    """What a correct credential writes beside the throttle's reset: `set` ("SET a = :a, ..."), `other`
    clauses ("DELETE ...", "REMOVE ..." parts are not allowed: REMOVE is the throttle's), their
    values, and a condition that must still hold (else the attempt failed)."""

    set: str = ""
    values: Mapping[str, Any] = MappingProxyType({})
    condition: str = ""
    other: str = ""


def key(tenant_id: str, username: str) -> dict[str, Any]:
    return {"tenant_id": s(tenant_id), "username": s(username)}


class UserStore(TableStore):
    """UsersTable: (tenant_id, username) -> password hash and throttling state."""

    table_setting = "users"

    def create(self, tenant_id: str, username: str, password: str, *, overwrite: bool = False) -> User:
        """Add a user (or replace one when `overwrite`); the password is stored as scrypt only."""
        return self.put_hash(tenant_id, username, hash_password(password), overwrite=overwrite)

    def put_hash(self, tenant_id: str, username: str, password_hash: str, *, overwrite: bool = True) -> User:
        """Add (or replace) a user whose password is already hashed (`hash_password`)."""
        user = User(tenant_id, username, 0, 0)
        item = records.to_item(ITEM_FIELDS, {**user._asdict(), "password_hash": password_hash,
                                             "created_at": clock.seconds()})
        self.upsert(item, "create", condition=None if overwrite else "attribute_not_exists(username)",
                    refused=lambda: UserExists(f"user {username!r} already exists in tenant {tenant_id!r}"))
        return user

    def get(self, tenant_id: str, username: str) -> User | None:
        item = self.find(key(tenant_id, username))
        return User(**records.from_item(FIELDS, item)) if item else None

    def verify(self, tenant_id: str, username: str, password: str) -> LoginResult:
        """Check a password under the throttling rules of authgate.users.model."""
        def check(stored: dict[str, Any]) -> Success | None:
            if not check_password(password, stored["password_hash"]):
                return None
            if needs_rehash(stored["password_hash"]):
                # The same write: the password, known good now, at the current cost.
                return Success("SET password_hash = :hash", {":hash": s(hash_password(password))})
            return Success()

        return self.attempt(tenant_id, username, check, refused_work=lambda: check_password(password, dummy_hash()))

    def attempt(self, tenant_id: str, username: str, check: Callable[[dict[str, Any]], Success | None], *,
                refused_work: Callable[[], object] = lambda: None) -> LoginResult:
        """One sign-in attempt with any credential, under the account's throttle (authgate.users.model).

        `check(stored)` judges the credential against the reserved item (ITEM_FIELDS values plus the
        raw item under "item") and returns the Success write, or None. A Success whose condition fails
        (a one-time code's step used since) counts as a failure. `refused_work` is what a refused
        attempt does instead, so refusals cost what a check costs (a password's scrypt).
        """
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
            refused_work()
            old = exc.response.get("Item")
            if not old:
                return LoginResult(False, "invalid")
            locked = records.from_item(FIELDS, old)["locked_until"] > now
            return LoginResult(False, "locked" if locked else "throttled")

        stored = {**records.from_item(ITEM_FIELDS, reserved), "item": reserved}
        success = check(stored)
        if success is not None and self._succeeded(item_key, success):
            return LoginResult(True, "ok", subject=username)

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

    def _succeeded(self, item_key: dict[str, Any], success: Success) -> bool:
        """The success write: failures reset, the window and lock gone, plus the credential's own
        changes; False when its condition no longer holds (nothing written)."""
        from botocore.exceptions import ClientError

        sets = ["failed_logins = :zero", *([success.set.removeprefix("SET ")] if success.set else [])]
        update = "SET " + ", ".join(sets) + " REMOVE next_attempt_at, locked_until" + (
            f" {success.other}" if success.other else "")
        extra = {"ConditionExpression": success.condition} if success.condition else {}
        try:
            with self.faults("success"):
                self.db.update_item(TableName=self.table, Key=item_key, UpdateExpression=update,
                                    ExpressionAttributeValues={":zero": n(0), **success.values}, **extra)
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            return False
        return True
