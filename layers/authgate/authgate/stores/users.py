"""UsersTable: (tenant_id, username) -> scrypt password hash, sign-in throttle state and the user's profile.

The rules are authgate.users (model: the throttle; passwords: the hash). Each attempt first
reserves itself with one conditional write that also moves the window, so a burst of parallel
guesses gets no more tries than a sequence would. Unknown users, refused attempts and wrong
passwords look the same to the caller and cost one scrypt each; so does a disabled account.
A second-factor step judges its code on the item its batch read instead (`judged`): no
reservation, a failure counted when it happens, and the success written in the step's
transaction on condition that no failure, lock or use came in between.

The operator's changes (authgate users ...) are each one conditional UpdateItem on an existing
user; a user's email is also kept lower-cased in `email_lower`, the sort key of the UsersByEmail
index (tenant_id, email_lower), which finds a tenant's user by email.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from authgate import clock, records
from authgate.records import n, s
from authgate.stores.base import TableStore
from authgate.stores.batch import BatchRead, Pending
from authgate.stores.faults import condition_failed
from authgate.users.errors import UserExists, UserNotFound
from authgate.users.model import (
    FIELDS,
    FREE_ATTEMPTS,
    LOCK_AFTER,
    LOCK_SECONDS,
    LoginResult,
    User,
    delay_after,
    email_lower,
    new_user_id,
)
from authgate.users.passwords import check_password, dummy_hash, hash_password, needs_rehash

# The stored record: a User's fields and what only the store sees.
ITEM_FIELDS = (*FIELDS, records.Field("password_hash", "S", "", public=False),
               records.Field("email_lower", "S", "", omit_empty=True, public=False))
EMAIL_INDEX = "UsersByEmail"
_EXISTS = "attribute_exists(username)"
# Ending a user's sessions: every session and grant of an earlier generation is dead (User.admits).
NEXT_GENERATION = "ADD session_generation :one"


# The count of the user's passkeys (stores.passkeys moves it with each add and remove).
COUNT = "passkeys"


def passkeys_held(item: Mapping[str, Any] | None) -> bool | None:
    """Whether a user's item says they hold a passkey (None: the item predates the count, or was not read)."""
    count = (item or {}).get(COUNT)
    return int(count["N"]) > 0 if count is not None else None


# No username is longer (the admin command refuses longer ones); a longer key is never read.
MAX_USERNAME = 256


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


def key(tenant_id: str, username: str) -> dict[str, Any]:
    return {"tenant_id": s(tenant_id), "username": s(username)}


def user_key(tenant_id: str, username: str) -> dict[str, Any] | None:
    """A user's key for a batch read another flow makes (None: a key no user can have)."""
    if not tenant_id or not username or len(username) > MAX_USERNAME:
        return None
    return key(tenant_id, username)


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


class UserStore(TableStore):
    """UsersTable: (tenant_id, username) -> password hash and throttling state."""

    table_setting = "users"

    def create(self, tenant_id: str, username: str, password: str, *, overwrite: bool = False,
               **profile: Any) -> User:
        """Add a user (or replace one when `overwrite`); the password is stored as scrypt only.

        Its `sessions_valid_after` is the second before its creation: nothing issued to an earlier user of
        the same username (deleted, or replaced by `overwrite`) before then stands for this one."""
        return self.put_hash(tenant_id, username, hash_password(password), overwrite=overwrite,
                             sessions_valid_after=clock.seconds() - 1, **profile)

    def put_hash(self, tenant_id: str, username: str, password_hash: str, *, overwrite: bool = True,
                 **profile: Any) -> User:
        """Add (or replace) a user whose password is already hashed (`hash_password`); `profile` sets the
        User's other fields (user_id: a new one unless given) and `passkeys` the count of passkeys they hold
        (stores.passkeys; unless given: 0 for a new user, unknown for one replaced, who may hold some)."""
        passkeys: int | None = profile.pop(COUNT, None)
        now = clock.seconds()
        user = User(tenant_id, username, 0, 0, **{"user_id": new_user_id(), "created_at": now, "updated_at": now,
                                                  **profile})
        if not user.user_id:  # a seed or snapshot may name the field empty
            user = user._replace(user_id=new_user_id())
        item = records.to_item(ITEM_FIELDS, {**user._asdict(), "password_hash": password_hash,
                                             "email_lower": email_lower(user.email)})
        if passkeys is not None or not overwrite:
            item[COUNT] = n(passkeys or 0)
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
                                    UpdateExpression=f"SET sessions_valid_after = :at {NEXT_GENERATION}",
                                    ConditionExpression="attribute_exists(username)",
                                    ExpressionAttributeValues={":at": n(at), ":one": n(1)})
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            return False
        return True

    def of_tenant(self, tenant_id: str) -> Iterator[User]:
        """The tenant's users in username order (a Query of its partition, page by page; admin listings)."""
        yield from self._query("list", {"KeyConditionExpression": "tenant_id = :t",
                                        "ExpressionAttributeValues": {":t": s(tenant_id)}, "ConsistentRead": True})

    def by_email(self, tenant_id: str, email: str) -> list[User]:
        """The tenant's users with this email, compared lower-cased (the UsersByEmail index; eventually
        consistent, as every global secondary index)."""
        if not email:
            return []
        return list(self._query("by_email", {
            "IndexName": EMAIL_INDEX, "KeyConditionExpression": "tenant_id = :t AND email_lower = :e",
            "ExpressionAttributeValues": {":t": s(tenant_id), ":e": s(email_lower(email))}}))

    def _query(self, operation: str, params: dict[str, Any]) -> Iterator[User]:
        kwargs: dict[str, Any] = {"TableName": self.table, **params}
        while True:
            with self.faults(operation):
                page = self.db.query(**kwargs)
            for item in page.get("Items", []):
                yield User(**records.from_item(FIELDS, item))
            if "LastEvaluatedKey" not in page:
                return
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    # -- the operator's changes: one conditional UpdateItem each, on a user that exists ---------------

    def update_profile(self, tenant_id: str, username: str, *, name: str | None = None, email: str | None = None,
                       email_verified: bool | None = None) -> User:
        """Change the profile fields given (None: kept); a new email is unverified unless told otherwise."""
        sets: dict[str, Any] = {}
        removes: list[str] = []
        if name:
            sets["name"] = s(name)
        elif name is not None:
            removes.append("name")
        if email is not None:
            if email:
                sets.update(email=s(email), email_lower=s(email_lower(email)))
            else:
                removes.extend(["email", "email_lower"])
            if email_verified is None:
                email_verified = False
        if email_verified is not None:
            sets["email_verified"] = {"BOOL": email_verified}
        return self._change("update", tenant_id, username, sets, removes)

    def set_disabled(self, tenant_id: str, username: str, disabled: bool) -> User:
        """Disable (ending every session and refresh token issued so far) or enable the account."""
        sets: dict[str, Any] = {"disabled": {"BOOL": disabled}}
        if disabled:
            sets["sessions_valid_after"] = n(clock.seconds())
        return self._change("disable" if disabled else "enable", tenant_id, username, sets, [],
                            ends_sessions=disabled)

    def reset_password(self, tenant_id: str, username: str, password: str) -> User:
        """An operator's reset: a temporary password the user must change at the next sign-in; the account's
        sessions and refresh tokens end and its throttle is cleared."""
        return self._change("reset_password", tenant_id, username, {
            "password_hash": s(hash_password(password)), "must_change_password": {"BOOL": True},
            "sessions_valid_after": n(clock.seconds()), "failed_logins": n(0)}, ["locked_until", "next_attempt_at"],
            ends_sessions=True)

    def change_password(self, tenant_id: str, username: str, password: str) -> User:
        """The user's own change: the new password, no forced change pending, every earlier session ended."""
        return self._change("change_password", tenant_id, username, {
            "password_hash": s(hash_password(password)), "must_change_password": {"BOOL": False},
            "sessions_valid_after": n(clock.seconds()), "failed_logins": n(0)}, ["locked_until", "next_attempt_at"],
            ends_sessions=True)

    def unlock(self, tenant_id: str, username: str) -> User:
        """Clear the account's sign-in throttle (failures, wait window and lock)."""
        return self._change("unlock", tenant_id, username, {"failed_logins": n(0)},
                            ["locked_until", "next_attempt_at"])

    def delete(self, tenant_id: str, username: str) -> None:
        """Remove the user and every personal attribute with it (its refresh tokens stop at their next use)."""
        self.destroy(key(tenant_id, username), condition=_EXISTS,
                     refused=lambda: UserNotFound(f"no user {username!r} in tenant {tenant_id!r}"))

    def _change(self, operation: str, tenant_id: str, username: str, sets: dict[str, Any],
                removes: list[str], *, ends_sessions: bool = False) -> User:
        names = {f"#a{i}": name for i, name in enumerate([*sets, "updated_at", *removes])}
        ids = {name: alias for alias, name in names.items()}
        values = {f":v{i}": value for i, value in enumerate([*sets.values(), n(clock.seconds())])}
        update = "SET " + ", ".join(f"{ids[name]} = :v{i}" for i, name in enumerate([*sets, "updated_at"]))
        if removes:
            update += " REMOVE " + ", ".join(ids[name] for name in removes)
        if ends_sessions:
            update, values = f"{update} {NEXT_GENERATION}", {**values, ":one": n(1)}
        with self.faults(operation, refused=lambda: UserNotFound(f"no user {username!r} in tenant {tenant_id!r}")):
            item = self.db.update_item(TableName=self.table, Key=key(tenant_id, username), UpdateExpression=update,
                                       ConditionExpression=_EXISTS, ExpressionAttributeNames=names,
                                       ExpressionAttributeValues=values, ReturnValues="ALL_NEW")["Attributes"]
        return User(**records.from_item(FIELDS, item))

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
                    TableName=self.table, Key=item_key, ConditionExpression=_EXISTS, ReturnValues="UPDATED_NEW",
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
