"""Password reset links in CodesTable (authgate.users.password_reset): created hashed, read, consumed once."""

from __future__ import annotations

import secrets

from authgate import clock, records
from authgate.records import n, s
from authgate.stores.base import TableStore
from authgate.users.errors import ResetLinkInvalid
from authgate.users.password_reset import FIELDS, RESET_TTL, PasswordReset, reset_key

MAX_TOKEN = 128


class PasswordResetStore(TableStore):
    """CodesTable items "reset#<sha256>" -> the account whose password the link may set, until expires_at."""

    table_setting = "codes"
    name = "password_resets"

    def create(self, tenant_id: str, username: str) -> str:
        """A new link's token (the only time it exists in plain text). `username` "" writes the same item for
        nobody (so a request costs the same whoever it names): a link that never works."""
        token = secrets.token_urlsafe(32)
        now = clock.seconds()
        record = PasswordReset(reset_key(token), tenant_id, username, "issued", now, now + RESET_TTL)
        self.upsert(records.to_item(FIELDS, record._asdict()), "create", condition="attribute_not_exists(code_hash)")
        return token

    def peek(self, token: str) -> PasswordReset:
        """The link's record while it can still be used (ResetLinkInvalid otherwise); consumes nothing."""
        item = self.find({"code_hash": s(reset_key(token))}) if 0 < len(token) <= MAX_TOKEN else None
        if not item:
            raise ResetLinkInvalid()
        record = PasswordReset(**records.from_item(FIELDS, item))
        if not record.username or record.state != "issued" or record.expires_at <= clock.seconds():
            raise ResetLinkInvalid()
        return record

    def consume(self, token: str) -> PasswordReset:
        """Use the link, once: one conditional UpdateItem (issued and not expired); ResetLinkInvalid otherwise."""
        if not 0 < len(token) <= MAX_TOKEN:
            raise ResetLinkInvalid()
        now = clock.seconds()
        with self.faults("consume", refused=ResetLinkInvalid):
            item = self.db.update_item(
                TableName=self.table, Key={"code_hash": s(reset_key(token))},
                UpdateExpression="SET #state = :consumed, consumed_at = :now",
                ConditionExpression="attribute_exists(code_hash) AND #state = :issued AND expires_at > :now",
                ExpressionAttributeNames={"#state": "state"},
                ExpressionAttributeValues={":consumed": s("consumed"), ":issued": s("issued"), ":now": n(now)},
                ReturnValues="ALL_NEW")["Attributes"]
        return PasswordReset(**records.from_item(FIELDS, item))
