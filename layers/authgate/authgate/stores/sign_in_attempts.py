"""A sign-in attempt with a password under the account's throttle, on the UsersTable item.

The rules are authgate.users.model (the password's throttle) and authgate.users.passwords (the hash). Each
attempt first reserves itself with one conditional write that also moves the window, so a burst of
parallel guesses gets no more tries than a sequence would. Unknown users, refused attempts and wrong
passwords look the same to the caller and cost one scrypt each; so do a disabled account and a federated-only
one (it has no password: users.model.User.federated_only).
A one-time or recovery code typed beside the password rides in the same attempt (stores.factor_attempts,
the second factor's own throttle): its throttle's condition joins the reservation's (`Gate`), and a right
password beside a wrong code writes the code's failure (`Failure`) where a wrong password writes the
password's.
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
    Reason,
    User,
    delay_after,
    new_user_id,
)
from authgate.users.passwords import check_password, dummy_hash, hash_password, needs_rehash


class Success(NamedTuple):
    """What a correct credential writes beside the throttle's reset: `set` ("SET a = :a, ..."), `other`
    clauses ("DELETE ..."), `remove` (attribute names, joined to the throttle's one REMOVE clause), their
    values, and a condition that must still hold (else the attempt failed)."""

    set: str = ""
    values: Mapping[str, Any] = MappingProxyType({})
    condition: str = ""
    other: str = ""
    remove: str = ""

    def joined(self, other: Success) -> Success:
        """Both credentials' writes in the one success write; both conditions must hold."""
        sets = ", ".join(part.removeprefix("SET ") for part in (self.set, other.set) if part)
        given = [c for c in (self.condition, other.condition) if c]
        # One condition as it is: DynamoDB refuses parentheses around what is parenthesized already.
        conditions = " AND ".join(f"({c})" for c in given) if len(given) > 1 else "".join(given)
        return Success(f"SET {sets}" if sets else "", {**self.values, **other.values}, conditions,
                       " ".join(part for part in (self.other, other.other) if part),
                       ", ".join(part for part in (self.remove, other.remove) if part))


class Failure(NamedTuple):
    """A check's verdict that the password was right and the second factor beside it wrong: `set` ("a = :a, ...")
    counts it on the factor's throttle, written (with `values`) instead of the password's failure, and the
    password's throttle is reset as a right password resets it: each throttle counts its own credential."""

    set: str
    values: Mapping[str, Any] = MappingProxyType({})


class Gate(NamedTuple):
    """Another throttle's condition on the reservation (the second factor's, for a code typed beside the password),
    its values, and the reason a refusal by it is logged with."""

    condition: str
    values: Mapping[str, Any]
    reason: Reason


# What an attempt's check judges: a right credential's write, a wrong second factor beside a right password, or
# None (a wrong password).
Check = Callable[[dict[str, Any]], Success | Failure | None]


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
    """The sign-in throttle of UsersTable's items (stores.users.UserStore and stores.factor_attempts build on it)."""

    table_setting = "users"

    def verify(self, tenant_id: str, username: str, password: str) -> LoginResult:
        """Check a password under the throttling rules of authgate.users.model."""
        return self.attempt(tenant_id, username, password_check(password),
                            refused_work=lambda: check_password(password, dummy_hash()))

    def attempt(self, tenant_id: str, username: str, check: Check, *,
                refused_work: Callable[[], object] = lambda: None, gate: Gate | None = None) -> LoginResult:
        """One sign-in attempt with a password (and what is typed beside it), under the account's throttle
        (authgate.users.model) and the `gate` of another's.

        `check(stored)` judges the credential against the reserved item (ITEM_FIELDS values plus the
        raw item under "item") and returns the Success write, a Failure of the second factor, or None (a
        wrong password). A Success whose condition fails (a one-time code's step used since) counts as a
        failure. `refused_work` is what a refused attempt does instead, so refusals cost what a check costs
        (a password's scrypt).
        """
        now = clock.seconds()
        item_key = key(tenant_id, username)
        # The reservation: refuse while locked or inside the wait window; otherwise count this attempt as a
        # failure up front and close the window for one second, so parallel attempts cannot all slip through
        # before any failure is recorded.
        reserved, old = self.reserve(
            item_key, "SET failed_logins = if_not_exists(failed_logins, :zero) + :one, next_attempt_at = :soon",
            "attribute_exists(username) AND (attribute_not_exists(disabled) OR disabled = :off) "
            "AND (attribute_not_exists(federated_only) OR federated_only = :off) "
            "AND (attribute_not_exists(locked_until) OR locked_until <= :now) "
            "AND (attribute_not_exists(failed_logins) OR failed_logins < :free "
            "OR attribute_not_exists(next_attempt_at) OR next_attempt_at <= :now)"
            + (f" AND {gate.condition}" if gate else ""),
            {":zero": n(0), ":one": n(1), ":now": n(now), ":soon": n(now + 1), ":free": n(FREE_ATTEMPTS),
             ":off": {"BOOL": False}, **(gate.values if gate else {})})
        if reserved is None:
            refused_work()
            return LoginResult(False, _refusal(old, now, gate.reason if gate else "throttled"),
                               named=records.string(old, "user_id") if old else "")

        stored = {**records.from_item(ITEM_FIELDS, reserved), "item": reserved}
        verdict = check(stored)
        if isinstance(verdict, Failure):
            self._failed_beside(item_key, verdict)
            return LoginResult(False, "second_factor_failed", named=stored["user_id"])
        user_id = self.succeeded(item_key, verdict, stored["user_id"]) if verdict is not None else None
        if user_id is not None:
            return LoginResult(True, "ok", subject=username, user_id=user_id,
                               must_change_password=bool(stored["must_change_password"]),
                               generation=int(stored["session_generation"]), totp=bool(reserved.get("totp_secret")),
                               passkeys=passkeys_held(reserved))

        locked = self._after_failure(item_key, int(stored["failed_logins"]), now)
        return LoginResult(False, "invalid", named=stored["user_id"], locked_now=locked)

    def reserve(self, item_key: dict[str, Any], update: str, condition: str,
                values: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """An attempt's reservation, one conditional UpdateItem: (the item as reserved, None), or (None, the item as
        it stood: None when there is none) when the condition refused it."""
        from botocore.exceptions import ClientError

        try:
            with self.faults("reserve"):
                reserved = self.db.update_item(
                    TableName=self.table, Key=item_key, UpdateExpression=update, ConditionExpression=condition,
                    ExpressionAttributeValues=values, ReturnValues="ALL_NEW",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD")["Attributes"]
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            return None, exc.response.get("Item")
        return reserved, None

    def _failed_beside(self, item_key: dict[str, Any], failure: Failure) -> None:
        """A right password beside a wrong second factor: the factor's failure counted, the password's throttle
        reset (one UpdateItem, as a wrong password's failure is one)."""
        from botocore.exceptions import ClientError

        try:
            with self.faults("failure"):
                self.db.update_item(TableName=self.table, Key=item_key, ConditionExpression=EXISTS,
                                    UpdateExpression=f"SET {failure.set}, failed_logins = :zero "
                                                     "REMOVE next_attempt_at, locked_until",
                                    ExpressionAttributeValues={**failure.values, ":zero": n(0)})
        except ClientError as exc:
            if not condition_failed(exc):
                raise

    def _after_failure(self, item_key: dict[str, Any], failures: int, now: int) -> bool:
        """A counted failure's consequence: the account locked at LOCK_AFTER (True), else its wait window pushed
        later."""
        from botocore.exceptions import ClientError

        with self.faults("failure"):
            if failures >= LOCK_AFTER:
                self.db.update_item(TableName=self.table, Key=item_key,
                                    UpdateExpression="SET locked_until = :until, failed_logins = :zero "
                                                     "REMOVE next_attempt_at",
                                    ExpressionAttributeValues={":until": n(now + LOCK_SECONDS), ":zero": n(0)})
                return True
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
            return False

    def succeeded(self, item_key: dict[str, Any], success: Success, user_id: str, *,
                  password: bool = True) -> str | None:
        """The success write: the password's failures reset, its window and lock gone (`password`: the attempt
        checked one), plus the credential's own changes; the user's id, or None when the credential's condition
        no longer holds (nothing written).

        A record written before user ids existed gets its id now; of two concurrent sign-ins the first
        write's id stays (if_not_exists), and both read it back."""
        from botocore.exceptions import ClientError

        update, values = success_update(success, user_id, password=password)
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


def success_update(success: Success, user_id: str, *, password: bool = True) -> tuple[str, dict[str, Any]]:
    """(UpdateExpression, values) of a success write: the password's throttle reset when the attempt checked a
    password, the credential's own changes; a record without a user id gets one (if_not_exists: of two concurrent
    sign-ins the first stays)."""
    sets = [*(["failed_logins = :zero"] if password else []), "user_id = if_not_exists(user_id, :uid)",
            *([success.set.removeprefix("SET ")] if success.set else [])]
    removes = [*(["next_attempt_at", "locked_until"] if password else []), *([success.remove] if success.remove else [])]
    update = "SET " + ", ".join(sets) + (" REMOVE " + ", ".join(removes) if removes else "") + (
        f" {success.other}" if success.other else "")
    return update, {**({":zero": n(0)} if password else {}), ":uid": s(user_id or new_user_id()), **success.values}


def _refusal(old: dict[str, Any] | None, now: int, otherwise: Reason) -> Reason:
    """Why a reservation was refused, for logs: no such user (invalid), disabled, federated-only (no_password),
    locked, inside the wait window (throttled), else `otherwise` (the reason of the gate that refused it)."""
    if not old:
        return "invalid"
    user = User(**records.from_item(FIELDS, old))
    if user.disabled:
        return "disabled"
    if user.federated_only:
        return "no_password"
    if user.locked(now):
        return "locked"
    waiting = user.failed_logins >= FREE_ATTEMPTS and records.number(old, "next_attempt_at") > now
    return "throttled" if waiting else otherwise
