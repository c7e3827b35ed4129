"""LinkedIdentitiesTable: (tenant_id, identity) -> the user an upstream identity signs in as (users.linked_identities).

`identity` is users.linked_identities.identity_key(issuer, subject), so an upstream sign-in finds its user
with one GetItem (or within a request's one BatchGetItem: `prefetch`); the index `by_user` (user_id)
lists a user's links. Every write is conditional:
- a link is made only where none is (attribute_not_exists), with a check in the same transaction that
  its user is still the one it names (same user_id, not disabled): of two links of one upstream
  identity made at once, one wins; an account deleted or disabled meanwhile gets none;
- provisioning puts the new user's item and its link in one transaction, both or neither;
- unlinking is conditional on the link's user; deleting a user removes its item and its links in one
  transaction (`delete_user`), so no link outlives its user.
A link whose user is gone or another person now (left by a user replaced under its username, or by an
index not caught up when the user was deleted) is stale: federation.identities removes it with `unlink`.
"""

from __future__ import annotations

from typing import Any

from authgate import records
from authgate.records import s
from authgate.settings import get_settings
from authgate.stores.base import TableStore
from authgate.stores.batch import BatchRead, Pending
from authgate.stores.faults import cancellation_codes, condition_failed, unavailable
from authgate.stores.user_items import EXISTS, user_item
from authgate.stores.user_items import key as user_key
from authgate.users.errors import LinkRefused, UserExists, UserNotFound
from authgate.users.linked_identities import FIELDS, LinkedIdentity, identity_key, linkable
from authgate.users.model import User

BY_USER = "by_user"
# A TransactWriteItems holds at most 100 items: a user's delete and 99 of their links.
MAX_TRANSACTION = 100
ITEM_FIELDS = (*FIELDS, records.Field("identity", "S"))
# Where no link is (any key attribute: `identity` is a reserved word of expressions).
_FREE = "attribute_not_exists(tenant_id)"
# The user a link is made for is the one it names, and may sign in.
_SAME_ENABLED_USER = "user_id = :uid AND (attribute_not_exists(disabled) OR disabled = :off)"


def _key(tenant_id: str, issuer: str, subject: str) -> dict[str, Any]:
    return {"tenant_id": s(tenant_id), "identity": s(identity_key(issuer, subject))}


def _item(link: LinkedIdentity) -> records.Item:
    return records.to_item(ITEM_FIELDS, {**link._asdict(), "identity": identity_key(link.issuer, link.subject)})


def link_of(item: records.Item) -> LinkedIdentity:
    """The link an item holds (read in another flow's batch)."""
    return LinkedIdentity(**records.from_item(FIELDS, item))


class LinkedIdentityStore(TableStore):
    table_setting = "linked_identities"

    def get(self, tenant_id: str, issuer: str, subject: str) -> LinkedIdentity | None:
        """The link of this upstream identity, or None (one GetItem)."""
        item_key = self.item_key(tenant_id, issuer, subject)
        item = self.find(item_key) if item_key is not None else None
        return link_of(item) if item else None

    @staticmethod
    def item_key(tenant_id: str, issuer: str, subject: str) -> dict[str, Any] | None:
        """A link's key for a batch read another flow makes (None: an identity no link can have)."""
        return _key(tenant_id, issuer, subject) if tenant_id and linkable(issuer, subject) else None

    def prefetch(self, reads: BatchRead, tenant_id: str, issuer: str, subject: str) -> Pending | None:
        """Register the link's item in a request's batch read (None: an identity no link can have)."""
        item_key = self.item_key(tenant_id, issuer, subject)
        return reads.add(self.table, item_key) if item_key is not None else None

    @staticmethod
    def found(pending: Pending | None) -> LinkedIdentity | None:
        """The link a prefetched read found."""
        item = pending.item if pending is not None else None
        return link_of(item) if item else None

    def of_user(self, user_id: str) -> tuple[LinkedIdentity, ...]:
        """The user's links, oldest first (a Query of the index, page by page; eventually consistent, as every
        index)."""
        if not user_id:
            return ()
        links = self._query("of_user", {"IndexName": BY_USER, "KeyConditionExpression": "user_id = :uid",
                                        "ExpressionAttributeValues": {":uid": s(user_id)}})
        return tuple(sorted(links, key=lambda link: link.linked_at))

    def of_issuer(self, tenant_id: str, issuer: str) -> tuple[LinkedIdentity, ...]:
        """The links of one IdP of the tenant (a Query of the tenant's links, filtered by issuer, page by page: for
        an administrator's change of the IdP, never a request path)."""
        return tuple(self._query("of_issuer", {"KeyConditionExpression": "tenant_id = :t",
                                               "FilterExpression": "issuer = :iss",
                                               "ExpressionAttributeValues": {":t": s(tenant_id), ":iss": s(issuer)}}))

    def _query(self, operation: str, query: dict[str, Any]) -> list[LinkedIdentity]:
        """Every link a Query finds, page by page."""
        kwargs: dict[str, Any] = {"TableName": self.table, **query}
        links: list[LinkedIdentity] = []
        while True:
            with self.faults(operation):
                page = self.db.query(**kwargs)
            links.extend(link_of(item) for item in page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                return links
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def link(self, link: LinkedIdentity) -> None:
        """Link an upstream identity to an existing user (one TransactWriteItems: the link where none is, and a
        check that the user is still `link.user_id` and not disabled). LinkRefused when the identity is linked
        already (to anyone) or the user is gone, another person or disabled."""
        codes = self._transact("link", [
            {"Put": {"TableName": self.table, "Item": _item(link), "ConditionExpression": _FREE}},
            self._user_check(link)])
        if codes:
            raise LinkRefused("the identity is linked already" if codes[0] == "ConditionalCheckFailed"
                              else "the user is gone, another person now, or disabled")

    def provision(self, user: User, link: LinkedIdentity) -> None:
        """Create a federated-only user and its first link, both or neither (one TransactWriteItems). UserExists
        when the username is taken; LinkRefused when the identity is linked already."""
        codes = self._transact("provision", [
            {"Put": {"TableName": get_settings().tables.users, "Item": user_item(user, "", 0),
                     "ConditionExpression": "attribute_not_exists(username)"}},
            {"Put": {"TableName": self.table, "Item": _item(link), "ConditionExpression": _FREE}}])
        if codes[:1] == ["ConditionalCheckFailed"]:
            raise UserExists(f"user {user.username!r} already exists in tenant {user.tenant_id!r}")
        if codes:
            raise LinkRefused("the identity is linked already")

    def unlink(self, link: LinkedIdentity) -> bool:
        """Remove one link, on condition that it still names its user; False when it is gone or changed."""
        from botocore.exceptions import ClientError

        try:
            with self.faults("unlink"):
                self.db.delete_item(TableName=self.table, Key=_key(link.tenant_id, link.issuer, link.subject),
                                    ConditionExpression="user_id = :uid",
                                    ExpressionAttributeValues={":uid": s(link.user_id)})
        except ClientError as exc:
            if not condition_failed(exc):
                raise
            return False
        return True

    def delete_user(self, user: User) -> None:
        """Delete the user's item and their links in one TransactWriteItems (on condition that the item is still this
        user's); UserNotFound when it is not. (Beyond 99 links, never seen, the rest go after it: stale by then.)"""
        links = self.of_user(user.user_id)
        first, rest = links[:MAX_TRANSACTION - 1], links[MAX_TRANSACTION - 1:]
        codes = self._transact("delete_user", [
            {"Delete": {"TableName": get_settings().tables.users, "Key": user_key(user.tenant_id, user.username),
                        "ConditionExpression": f"{EXISTS} AND user_id = :uid",
                        "ExpressionAttributeValues": {":uid": s(user.user_id)}}},
            *({"Delete": {"TableName": self.table, "Key": _key(link.tenant_id, link.issuer, link.subject)}}
              for link in first)])
        if codes:
            raise UserNotFound(f"no user {user.username!r} in tenant {user.tenant_id!r}")
        for link in rest:
            self.unlink(link)

    def _user_check(self, link: LinkedIdentity) -> dict[str, Any]:
        return {"ConditionCheck": {"TableName": get_settings().tables.users,
                                   "Key": user_key(link.tenant_id, link.username),
                                   "ConditionExpression": _SAME_ENABLED_USER,
                                   "ExpressionAttributeValues": {":uid": s(link.user_id), ":off": {"BOOL": False}}}}

    def _transact(self, operation: str, items: list[dict[str, Any]]) -> list[str]:
        """One TransactWriteItems; the per-item reason codes when a condition failed ([]: written). Another
        transaction on one of the items at the same instant (real DynamoDB) is StorageUnavailable: nothing was
        written, and a retry sees the winner."""
        from botocore.exceptions import ClientError

        with self.faults(operation):
            try:
                self.db.transact_write_items(TransactItems=items)
            except ClientError as exc:
                codes = cancellation_codes(exc.response)
                if "TransactionConflict" in codes:
                    raise unavailable(f"{self.table_setting}.{operation}", "TransactionConflict") from exc
                if "ConditionalCheckFailed" not in codes:
                    raise
                return codes
        return []
