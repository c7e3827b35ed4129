"""UsersTable: (tenant_id, username) -> a user's profile, password hash and factors (stores.user_items).

Sign-in attempts under the account's throttle are stores.sign_in_attempts, which UserStore builds on.
The operator's changes (authgate users ...) are each one conditional UpdateItem on an existing
user; a user's email is also kept lower-cased in `email_lower`, the sort key of the UsersByEmail
index (tenant_id, email_lower), which finds a tenant's user by email; the UsersById index (tenant_id,
user_id; keys only) finds one by its stable id.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from authgate import clock, records
from authgate.records import n, s
from authgate.stores.batch import BatchRead, Pending
from authgate.stores.faults import condition_failed
from authgate.stores.sign_in_attempts import SignInAttempts
from authgate.stores.user_items import (
    COUNT,
    EMAIL_INDEX,
    EXISTS,
    ID_INDEX,
    NEXT_GENERATION,
    key,
    user_item,
    user_key,
)
from authgate.users.errors import UserExists, UserNotFound
from authgate.users.model import FIELDS, User, email_lower, new_user_id
from authgate.users.passwords import hash_password

# What a password set by the operator or the person removes: the throttle's wait and lock, and being a
# federated-only user (users.model.User.federated_only: they may now sign in with it too).
PASSWORD_SET = ("locked_until", "next_attempt_at", "federated_only")


class UserStore(SignInAttempts):
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
        item = user_item(user, password_hash, passkeys or 0 if passkeys is not None or not overwrite else None)
        self.upsert(item, "create", condition=None if overwrite else "attribute_not_exists(username)",
                    refused=lambda: UserExists(f"user {username!r} already exists in tenant {tenant_id!r}"))
        return user

    def prefetch(self, reads: BatchRead, tenant_id: str, username: str) -> Pending | None:
        """Register the user's record in a request's batch read (None: a key no user can have)."""
        item_key = user_key(tenant_id, username)
        return reads.add(self.table, item_key) if item_key is not None else None

    @staticmethod
    def found(pending: Pending | None) -> User | None:
        """The user a prefetched read found."""
        item = pending.item if pending is not None else None
        return User(**records.from_item(FIELDS, item)) if item else None

    def get(self, tenant_id: str, username: str) -> User | None:
        item = self.find(key(tenant_id, username))
        return User(**records.from_item(FIELDS, item)) if item else None

    def with_user_id(self, user: User) -> User:
        """`user`, with a user_id: a record written before ids existed gets one now (of two at once, the first
        write's stays: if_not_exists), as a sign-in gives it (stores.sign_in_attempts.success_update)."""
        if user.user_id:
            return user
        with self.faults("with_user_id", refused=lambda: UserNotFound(f"no user {user.username!r}")):
            item = self.db.update_item(TableName=self.table, Key=key(user.tenant_id, user.username),
                                       UpdateExpression="SET user_id = if_not_exists(user_id, :uid)",
                                       ConditionExpression=EXISTS, ExpressionAttributeValues={":uid": s(new_user_id())},
                                       ReturnValues="ALL_NEW")["Attributes"]
        return User(**records.from_item(FIELDS, item))

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

    def page(self, tenant_id: str, *, prefix: str = "", after: str = "", limit: int = 20) -> tuple[list[User], str]:
        """Up to `limit` of the tenant's users whose username starts with `prefix`, in username order after the
        username `after` ("" from the first); (users, the username to continue after, "" when none is left)."""
        condition, values = "tenant_id = :t", {":t": s(tenant_id)}
        if prefix:
            condition, values = f"{condition} AND begins_with(username, :p)", {**values, ":p": s(prefix)}
        # One more than asked for: whether another page follows, without a Query that would find it empty.
        kwargs: dict[str, Any] = {"TableName": self.table, "KeyConditionExpression": condition,
                                  "ExpressionAttributeValues": values, "ConsistentRead": True, "Limit": limit + 1}
        if after:
            kwargs["ExclusiveStartKey"] = key(tenant_id, after)
        with self.faults("page"):
            items = self.db.query(**kwargs).get("Items", [])
        users = [User(**records.from_item(FIELDS, item)) for item in items[:limit]]
        return users, users[-1].username if len(items) > limit else ""

    def by_user_id(self, tenant_id: str, user_id: str) -> User | None:
        """The tenant's user whose stable id is `user_id` (the UsersById index, then the user's item)."""
        if not user_id:
            return None
        with self.faults("by_user_id"):
            found = self.db.query(TableName=self.table, IndexName=ID_INDEX,
                                  KeyConditionExpression="tenant_id = :t AND user_id = :u",
                                  ExpressionAttributeValues={":t": s(tenant_id), ":u": s(user_id)}).get("Items", [])
        return self.get(tenant_id, found[0]["username"]["S"]) if found else None

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
            "sessions_valid_after": n(clock.seconds()), "failed_logins": n(0)}, [*PASSWORD_SET],
            ends_sessions=True)

    def change_password(self, tenant_id: str, username: str, password: str) -> User:
        """The user's own change: the new password, no forced change pending, every earlier session ended."""
        return self._change("change_password", tenant_id, username, {
            "password_hash": s(hash_password(password)), "must_change_password": {"BOOL": False},
            "sessions_valid_after": n(clock.seconds()), "failed_logins": n(0)}, [*PASSWORD_SET],
            ends_sessions=True)

    def unlock(self, tenant_id: str, username: str) -> User:
        """Clear the account's sign-in throttles: the password's (failures, wait window and lock) and the second
        factor's (its count, and so its lock)."""
        return self._change("unlock", tenant_id, username, {"failed_logins": n(0)},
                            ["locked_until", "next_attempt_at", "factor_failures", "factor_failed_at"])

    def delete(self, tenant_id: str, username: str) -> None:
        """Remove the user and every personal attribute with it (its refresh tokens stop at their next use)."""
        self.destroy(key(tenant_id, username), condition=EXISTS,
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
                                       ConditionExpression=EXISTS, ExpressionAttributeNames=names,
                                       ExpressionAttributeValues=values, ReturnValues="ALL_NEW")["Attributes"]
        return User(**records.from_item(FIELDS, item))
