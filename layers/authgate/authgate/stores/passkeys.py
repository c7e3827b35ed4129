"""PasskeysTable: credential_id -> an enrolled passkey (users.passkeys), with the index `by_user` for a user's list.

A credential id is unique across the deployment (WebAuthn 7.1 step 25: a registration of an id
already held is refused), so the table is keyed by it: the username-less sign-in finds the passkey
from the assertion alone. Every use moves the signature counter under the condition that it still
holds the value the assertion was checked against, so two concurrent uses of one passkey (a
clone racing the original) cannot both pass. Removing one is conditional on its owner.
"""

from __future__ import annotations

from typing import Any

from authgate import records
from authgate.records import n, s
from authgate.stores.base import TableStore
from authgate.users.errors import PasskeyRefused
from authgate.users.passkeys import FIELDS, Passkey, user_key

BY_USER = "by_user"
# A user holds at most this many passkeys (one listing Query page).
MAX_PER_USER = 20
ITEM_FIELDS = (*FIELDS, records.Field("user_key", "S"))


def _key(credential_id: str) -> dict[str, Any]:
    return {"credential_id": s(credential_id)}


def _passkey(item: records.Item) -> Passkey:
    values = records.from_item(FIELDS, item)
    return Passkey(**values)


class PasskeyStore(TableStore):
    table_setting = "passkeys"

    def add(self, passkey: Passkey) -> None:
        """Store a newly registered passkey; PasskeyRefused when its credential id is already enrolled."""
        item = records.to_item(ITEM_FIELDS, {**passkey._asdict(), "user_key": passkey.user_key})
        self.upsert(item, "add", condition="attribute_not_exists(credential_id)",
                    refused=lambda: PasskeyRefused("this passkey is already enrolled"))

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
        """Remove one of the user's passkeys by id; False when the user holds no such passkey."""
        try:
            self.destroy(_key(credential_id), "remove", condition="user_key = :user",
                         values={":user": s(user_key(tenant_id, username))},
                         refused=lambda: PasskeyRefused("not the user's passkey"))
        except PasskeyRefused:
            return False
        return True
