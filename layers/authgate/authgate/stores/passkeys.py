"""PasskeysTable: credential_id -> an enrolled passkey (users.passkeys), with the index `by_user` for a user's list.

A credential id is unique across the deployment (WebAuthn 7.1 step 25: a registration of an id
already held is refused), so the table is keyed by it: the username-less sign-in finds the passkey
from the assertion alone. Every use moves the signature counter under the condition that it still
holds the value the assertion was checked against, so two concurrent uses of one passkey (a
clone racing the original) cannot both pass. Removing one is conditional on its owner.

Each add and remove also moves the count of the user's passkeys kept on their UsersTable item
(`passkeys`, stores.user_items.passkeys_held) in the same TransactWriteItems, so a sign-in's step knows
whether to offer "Use a passkey instead" from the user's item it read already, without a Query. An
item written before the count existed has none: its first add or remove counts the user's passkeys
(one Query) and sets the count on condition that it is still absent; until then `held` queries.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from authgate import records
from authgate.records import n, s
from authgate.settings import get_settings
from authgate.stores.base import TableStore
from authgate.stores.faults import cancellation_codes, unavailable
from authgate.stores.user_items import COUNT
from authgate.stores.user_items import key as owner_key
from authgate.users.errors import PasskeyRefused
from authgate.users.passkeys import FIELDS, Passkey, user_key

BY_USER = "by_user"
# A user holds at most this many passkeys (one listing Query page).
MAX_PER_USER = 20
ITEM_FIELDS = (*FIELDS, records.Field("user_key", "S"))
# Tries of a count's write that a concurrent first count overtook (each try after the first is that race).
COUNT_TRIES = 3


def _key(credential_id: str) -> dict[str, Any]:
    return {"credential_id": s(credential_id)}


def _passkey(item: records.Item) -> Passkey:
    values = records.from_item(FIELDS, item)
    return Passkey(**values)


class PasskeyStore(TableStore):
    table_setting = "passkeys"

    def add(self, passkey: Passkey) -> None:
        """Store a newly registered passkey and count it on its user's item, both or neither (one
        TransactWriteItems); PasskeyRefused when its credential id is already enrolled."""
        item = records.to_item(ITEM_FIELDS, {**passkey._asdict(), "user_key": passkey.user_key})
        put = {"Put": {"TableName": self.table, "Item": item,
                       "ConditionExpression": "attribute_not_exists(credential_id)"}}
        if not self._counted("add", put, passkey.tenant_id, passkey.username, lambda held: len(held) + 1):
            raise PasskeyRefused("this passkey is already enrolled")

    def get(self, credential_id: str) -> Passkey | None:
        item = self.find(_key(credential_id))
        return _passkey(item) if item else None

    def of_user(self, tenant_id: str, username: str) -> tuple[Passkey, ...]:
        """The user's passkeys, oldest first (one Query of the index)."""
        with self.faults("of_user"):
            page = self.db.query(TableName=self.table, IndexName=BY_USER,
                                 KeyConditionExpression="user_key = :user",
                                 ExpressionAttributeValues={":user": s(user_key(tenant_id, username))},
                                 Limit=MAX_PER_USER)
        return tuple(sorted((_passkey(i) for i in page.get("Items", [])), key=lambda p: p.created_at))

    def used(self, passkey: Passkey, sign_count: int, backed_up: bool, now: int) -> None:
        """Record a verified use: the new counter (only from the value it was checked against), the backup
        state, the time. PasskeyRefused when another use moved the counter first, or the passkey is gone."""
        with self.faults("used", refused=lambda: PasskeyRefused("the passkey was used or removed meanwhile")):
            self.db.update_item(
                TableName=self.table, Key=_key(passkey.credential_id),
                UpdateExpression="SET sign_count = :new, backed_up = :backed, last_used_at = :now",
                ConditionExpression="sign_count = :old",
                ExpressionAttributeValues={":new": n(sign_count), ":old": n(passkey.sign_count),
                                           ":backed": {"BOOL": backed_up}, ":now": n(now)})

    def remove(self, tenant_id: str, username: str, credential_id: str) -> bool:
        """Remove one of the user's passkeys by id and count it off their item (one TransactWriteItems); False when
        the user holds no such passkey."""
        delete = {"Delete": {"TableName": self.table, "Key": _key(credential_id),
                             "ConditionExpression": "user_key = :user",
                             "ExpressionAttributeValues": {":user": s(user_key(tenant_id, username))}}}
        return self._counted("remove", delete, tenant_id, username,
                             lambda held: len([p for p in held if p.credential_id != credential_id]))

    def held(self, tenant_id: str, username: str, counted: bool | None) -> bool:
        """Whether the user holds a passkey: `counted` as their item read (stores.user_items.passkeys_held), or one Query
        when the item predates the count (None)."""
        return counted if counted is not None else bool(self.of_user(tenant_id, username))

    def _counted(self, operation: str, member: dict[str, Any], tenant_id: str, username: str,
                 first_count: Callable[[tuple[Passkey, ...]], int]) -> bool:
        """`member` (the passkey's put or delete) with the matching change of the user's count, in one
        TransactWriteItems; False when the member's own condition failed; StorageUnavailable when concurrent writes
        overtook it COUNT_TRIES times. An item without a count gets its
        first one (`first_count` of the user's passkeys as one Query finds them, the member's change included); with
        no user's item, the member alone."""
        users, owner = get_settings().tables.users, owner_key(tenant_id, username)
        step = 1 if "Put" in member else -1
        for _ in range(COUNT_TRIES):
            update = {"Update": {"TableName": users, "Key": owner, "UpdateExpression": "ADD #count :step",
                                 "ConditionExpression": "attribute_exists(#count)",
                                 "ExpressionAttributeNames": {"#count": COUNT},
                                 "ExpressionAttributeValues": {":step": n(step)}}}
            codes = self._transact(operation, [member, update])
            if codes[:1] == ["ConditionalCheckFailed"]:
                return False
            if not codes:
                return True
            if "TransactionConflict" in codes:
                continue  # another write of the user's item or this passkey was under way: try again
            # The user's item has no count: it predates it, or it is gone.
            with self.faults(operation):
                found = self.db.get_item(TableName=users, Key=owner, ConsistentRead=True,
                                         ProjectionExpression="#count, username",
                                         ExpressionAttributeNames={"#count": COUNT}).get("Item")
            if found is None:  # no one to count them for (`users delete` removes the passkeys after the user)
                return not self._transact(operation, [member])
            if COUNT in found:
                continue  # counted meanwhile: the ADD again
            first = {"Update": {"TableName": users, "Key": owner, "UpdateExpression": "SET #count = :count",
                                "ConditionExpression": "attribute_exists(username) AND attribute_not_exists(#count)",
                                "ExpressionAttributeNames": {"#count": COUNT},
                                "ExpressionAttributeValues": {
                                    ":count": n(max(first_count(self.of_user(tenant_id, username)), 0))}}}
            codes = self._transact(operation, [member, first])
            if codes[:1] == ["ConditionalCheckFailed"]:
                return False
            if not codes:
                return True
        raise unavailable(f"{self.table_setting}.{operation}", "the user's passkeys kept changing meanwhile")

    def _transact(self, operation: str, items: list[dict[str, Any]]) -> list[str]:
        """One TransactWriteItems; the per-item reason codes when a condition failed or another transaction held an
        item ([]: written)."""
        from botocore.exceptions import ClientError

        with self.faults(operation):
            try:
                self.db.transact_write_items(TransactItems=items)
            except ClientError as exc:
                codes = cancellation_codes(exc.response)
                if not {"ConditionalCheckFailed", "TransactionConflict"} & set(codes):
                    raise
                return codes
        return []
