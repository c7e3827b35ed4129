"""UsersTable: the operators tenant's people and their roles (operators.model), the roles one attribute of the item.

Read with the user's other fields in one GetItem (or the console's one BatchGetItem); listed by a Query of the
tenant's partition; changed by one conditional UpdateItem, on the person read (same user_id) and on the roles read,
so that two owners changing one operator's roles at once cannot lose a revocation.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from authgate import records
from authgate.operators.model import ROLES_FIELD, Operator
from authgate.operators.roles import Roles
from authgate.records import s
from authgate.stores.base import TableStore
from authgate.stores.batch import BatchRead, Pending
from authgate.stores.exceptions import ConcurrentUpdate
from authgate.stores.user_items import key, user_key
from authgate.users.model import FIELDS, User

_ROLES = (ROLES_FIELD,)


def operator_of(item: dict[str, Any]) -> Operator:
    """The person of a user item and the roles it holds."""
    return Operator(User(**records.from_item(FIELDS, item)), records.from_item(_ROLES, item)[ROLES_FIELD.name])


class OperatorStore(TableStore):
    """The operators tenant's items of UsersTable, with their roles."""

    table_setting = "users"
    name = "operators"

    def get(self, tenant_id: str, username: str) -> Operator | None:
        item = self.find(key(tenant_id, username))
        return operator_of(item) if item else None

    def prefetch(self, reads: BatchRead, tenant_id: str, username: str) -> Pending | None:
        """Register the person's item in a request's batch read (None: a key no user can have)."""
        item_key = user_key(tenant_id, username)
        return reads.add(self.table, item_key) if item_key is not None else None

    @staticmethod
    def found(pending: Pending | None) -> Operator | None:
        item = pending.item if pending is not None else None
        return operator_of(item) if item else None

    def of_tenant(self, tenant_id: str) -> Iterator[Operator]:
        """The tenant's people and their roles, in username order (a Query of its partition, page by page)."""
        kwargs: dict[str, Any] = {"TableName": self.table, "KeyConditionExpression": "tenant_id = :t",
                                  "ExpressionAttributeValues": {":t": s(tenant_id)}, "ConsistentRead": True}
        while True:
            with self.faults("list"):
                page = self.db.query(**kwargs)
            yield from (operator_of(item) for item in page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                return
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def set_roles(self, operator: Operator, roles: Roles) -> Operator:
        """`operator` holding `roles` now (none: the attribute removed), if the person and their roles are still
        what was read; ConcurrentUpdate otherwise (deleted, created again, or changed meanwhile)."""
        user = operator.user
        values: dict[str, Any] = {":uid": s(user.user_id)}
        if operator.roles:
            values[":old"] = records.to_item(_ROLES, {ROLES_FIELD.name: operator.roles})[ROLES_FIELD.name]
            held = "operator_roles = :old"
        else:
            held = "attribute_not_exists(operator_roles)"
        if roles:
            values[":new"] = records.to_item(_ROLES, {ROLES_FIELD.name: roles})[ROLES_FIELD.name]
        with self.faults("set_roles", refused=lambda: ConcurrentUpdate(
                f"operator {user.username!r} changed meanwhile: read it again")):
            self.db.update_item(TableName=self.table, Key=key(user.tenant_id, user.username),
                                UpdateExpression="SET operator_roles = :new" if roles else "REMOVE operator_roles",
                                ConditionExpression=f"user_id = :uid AND {held}", ExpressionAttributeValues=values)
        return operator._replace(roles=roles)
