"""The UsersTable item: its key, the fields the store keeps beside a User's, and what other stores read of it.

A user's item is (tenant_id, username); beside the User's fields (users.model.FIELDS) it keeps the
password's scrypt hash, the email lower-cased for the UsersByEmail index, and the count of the
person's passkeys (stores.passkeys moves it). stores.users writes the record, stores.sign_in_attempts
its throttle.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from authgate import records
from authgate.records import n, s
from authgate.users.model import FIELDS, User, email_lower

# The stored record: a User's fields and what only the store sees.
ITEM_FIELDS = (*FIELDS, records.Field("password_hash", "S", "", public=False),
               records.Field("email_lower", "S", "", omit_empty=True, public=False))
EMAIL_INDEX = "UsersByEmail"
# A tenant's user by user_id (the console's search: an id from a token or a log line); keys only.
ID_INDEX = "UsersById"
EXISTS = "attribute_exists(username)"
# Ending a user's sessions: every session and grant of an earlier generation is dead (User.admits).
NEXT_GENERATION = "ADD session_generation :one"


# The count of the user's passkeys (stores.passkeys moves it with each add and remove).
COUNT = "passkeys"


def passkeys_held(item: Mapping[str, Any] | None) -> bool | None:
    """Whether a user's item says they hold a passkey (None: the item predates the count, or was not read)."""
    count = (item or {}).get(COUNT)
    return int(count["N"]) > 0 if count is not None else None


def user_item(user: User, password_hash: str, passkeys: int | None) -> records.Item:
    """A user's whole item: its fields, the password's hash ("" for none: a federated-only user), the email for
    the index, and the count of passkeys when known (None: left out, for a record replaced that may hold some)."""
    item = records.to_item(ITEM_FIELDS, {**user._asdict(), "password_hash": password_hash,
                                         "email_lower": email_lower(user.email)})
    if not password_hash:
        del item["password_hash"]
    if passkeys is not None:
        item[COUNT] = n(passkeys)
    return item


# No username is longer (the admin command refuses longer ones); a longer key is never read.
MAX_USERNAME = 256


def key(tenant_id: str, username: str) -> dict[str, Any]:
    return {"tenant_id": s(tenant_id), "username": s(username)}


def user_key(tenant_id: str, username: str) -> dict[str, Any] | None:
    """A user's key for a batch read another flow makes (None: a key no user can have)."""
    if not tenant_id or not username or len(username) > MAX_USERNAME:
        return None
    return key(tenant_id, username)
