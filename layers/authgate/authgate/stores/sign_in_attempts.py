"""A sign-in attempt with any credential under the account's throttle, on the UsersTable item.

The rules are authgate.users.model (the throttle) and authgate.users.passwords (the hash). Each
attempt first reserves itself with one conditional write that also moves the window, so a burst of
parallel guesses gets no more tries than a sequence would. Unknown users, refused attempts and wrong
passwords look the same to the caller and cost one scrypt each; so does a disabled account.
A second-factor step judges its code on the item its batch read instead (`judged`): no
reservation, a failure counted when it happens, and the success written in the step's
transaction on condition that no failure, lock or use came in between.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from authgate import clock, records
from authgate.records import n, s
from authgate.stores.base import TableStore
from authgate.stores.faults import condition_failed
from authgate.stores.user_items import EXISTS, ITEM_FIELDS, key, passkeys_held
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


class Success(NamedTuple):
    """What a correct credential writes beside the throttle's reset: `set` ("SET a = :a, ..."), `other`
    clauses ("DELETE ...", "REMOVE ..." parts are not allowed: REMOVE is the throttle's), their
    values, and a condition that must still hold (else the attempt failed)."""

    set: str = ""
    values: Mapping[str, Any] = MappingProxyType({})
    condition: str = ""
    other: str = ""

    def joined(self, other: Success) -> Success:
        """Both credentials' writes in the one success write; both conditions must hold."""
        sets = ", ".join(part.removeprefix("SET ") for part in (self.set, other.set) if part)
        conditions = " AND ".join(f"({c})" for c in (self.condition, other.condition) if c)
        return Success(f"SET {sets}" if sets else "", {**self.values, **other.values}, conditions,
                       " ".join(part for part in (self.other, other.other) if part))


def password_check(password: str) -> Callable[[dict[str, Any]], Success | None]:
    """An attempt's check of a password (UserStore.attempt); a hash at an old cost is rewritten in the same write."""
    def check(stored: dict[str, Any]) -> Success | None:
        if not check_password(password, stored["password_hash"]):
            return None
        if needs_rehash(stored["password_hash"]):
            # The same write: the password, known good now, at the current cost.
            return Success("SET password_hash = :hash", {":hash": s(hash_password(password))})
        return Success()

    return check


class SignInAttempts(TableStore):
    """The sign-in throttle of UsersTable's items (stores.users.UserStore and stores.user_factors build on it)."""

    table_setting = "users"

    def verify(self, tenant_id: str, username: str, password: str) -> LoginResult:
        """Check a password under the throttling rules of authgate.users.model."""
        return self.attempt(tenant_id, username, password_check(password),
                            refused_work=lambda: check_password(password, dummy_hash()))

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
                                        "AND (attribute_not_exists(disabled) OR disabled = :off) "
                                        "AND (attribute_not_exists(locked_until) OR locked_until <= :now) "
                                        "AND (attribute_not_exists(failed_logins) OR failed_logins < :free "
                                        "OR attribute_not_exists(next_attempt_at) OR next_attempt_at <= :now)",
                    ExpressionAttributeValues={":zero": n(0), ":one": n(1), ":now": n(now),
                                               ":soon": n(now + 1), ":free": n(FREE_ATTEMPTS),
                                               ":off": {"BOOL": False}},
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
            user = User(**records.from_item(FIELDS, old))
            return LoginResult(False, "disabled" if user.disabled else "locked" if user.locked(now) else "throttled")

        stored = {**records.from_item(ITEM_FIELDS, reserved), "item": reserved}
        success = check(stored)
        user_id = self._succeeded(item_key, success, stored["user_id"]) if success is not None else None
        if user_id is not None:
            return LoginResult(True, "ok", subject=username, user_id=user_id,
                               must_change_password=bool(stored["must_change_password"]),
                               generation=int(stored["session_generation"]), totp=bool(reserved.get("totp_secret")),
                               passkeys=passkeys_held(reserved))

        self._after_failure(item_key, int(stored["failed_logins"]), now)
        return LoginResult(False, "invalid")

    def _after_failure(self, item_key: dict[str, Any], failures: int, now: int) -> None:
        """A counted failure's consequence: the account locked at LOCK_AFTER, else its wait window pushed later."""
        from botocore.exceptions import ClientError

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

    def judged(self, tenant_id: str, username: str, item: dict[str, Any] | None,
               check: Callable[[dict[str, Any]], Success | None]) -> dict[str, Any] | None:
        """An attempt judged on the user's item as a batch read it (no reservation): the success write as a
        TransactWriteItems Update for the caller's transaction, or None (refused by the throttle, which writes
        nothing as a refused reservation does; or a wrong credential, counted at once: `failed`).

        The Update's condition is that nothing which matters changed since the read: no failure counted
        (`failed_logins` as read), no lock, not disabled, plus the credential's own (a TOTP step not used since).
        So a burst of parallel guesses gets no more than one guess does: a right guess wins only if its write
        lands before every other guess's failure, and each failure is counted (docs/strong-authentication.md)."""
        now = clock.seconds()
        if not item:
            return None
        user = User(**records.from_item(FIELDS, item))
        waiting = user.failed_logins >= FREE_ATTEMPTS and records.number(item, "next_attempt_at") > now
        if user.disabled or user.locked(now) or waiting:
            return None
        success = check({**records.from_item(ITEM_FIELDS, item), "item": item})
        if success is None:
            self.failed(tenant_id, username)
            return None
        update, values = _success_update(success, user.user_id)
        seen = "failed_logins = :seen" if "failed_logins" in item else "attribute_not_exists(failed_logins)"
        condition = (f"attribute_exists(username) AND (attribute_not_exists(disabled) OR disabled = :off) "
                     f"AND (attribute_not_exists(locked_until) OR locked_until <= :now) AND {seen}"
                     + (f" AND ({success.condition})" if success.condition else ""))
        return {"Update": {"TableName": self.table, "Key": key(tenant_id, username), "UpdateExpression": update,
                           "ConditionExpression": condition,
                           "ExpressionAttributeValues": {**values, ":off": {"BOOL": False}, ":now": n(now),
                                                         **({":seen": item["failed_logins"]}
                                                            if "failed_logins" in item else {})}}}

    def failed(self, tenant_id: str, username: str) -> None:
        """A failed attempt judged without a reservation (`judged`), or one whose success write was overtaken:
        counted, then the account's window pushed or its lock set (authgate.users.model)."""
        from botocore.exceptions import ClientError

        item_key = key(tenant_id, username)
        try:
            with self.faults("failure"):
                counted = self.db.update_item(
                    TableName=self.table, Key=item_key, ConditionExpression=EXISTS, ReturnValues="UPDATED_NEW",
                    UpdateExpression="SET failed_logins = if_not_exists(failed_logins, :zero) + :one",
                    ExpressionAttributeValues={":zero": n(0), ":one": n(1)})["Attributes"]
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            return
        self._after_failure(item_key, records.number(counted, "failed_logins"), clock.seconds())

    def _succeeded(self, item_key: dict[str, Any], success: Success, user_id: str) -> str | None:
        """The success write: failures reset, the window and lock gone, plus the credential's own
        changes; the user's id, or None when the credential's condition no longer holds (nothing written).

        A record written before user ids existed gets its id now; of two concurrent sign-ins the first
        write's id stays (if_not_exists), and both read it back."""
        from botocore.exceptions import ClientError

        update, values = _success_update(success, user_id)
        extra = {"ConditionExpression": success.condition} if success.condition else {}
        try:
            with self.faults("success"):
                written = self.db.update_item(
                    TableName=self.table, Key=item_key, UpdateExpression=update, ReturnValues="UPDATED_NEW",
                    ExpressionAttributeValues=values, **extra)
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            return None
        return records.string(written.get("Attributes") or {}, "user_id", user_id)


def _success_update(success: Success, user_id: str) -> tuple[str, dict[str, Any]]:
    """(UpdateExpression, values) of a success write: failures reset, the window and lock gone, the credential's
    own changes; a record without a user id gets one (if_not_exists: of two concurrent sign-ins the first stays)."""
    sets = ["failed_logins = :zero", "user_id = if_not_exists(user_id, :uid)",
            *([success.set.removeprefix("SET ")] if success.set else [])]
    update = "SET " + ", ".join(sets) + " REMOVE next_attempt_at, locked_until" + (
        f" {success.other}" if success.other else "")
    return update, {":zero": n(0), ":uid": s(user_id or new_user_id()), **success.values}
