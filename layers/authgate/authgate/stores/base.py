"""The shape every table store shares: a DynamoDB client (injected, or the process's on first use),
its table (injected, or from settings), the faults mapping named after the store, and the few
verbs its methods are made of.

The verbs are node-oidc-provider's adapter (find, upsert, destroy; consume is each store's own
conditional update) plus the admin listing's scan: one GetItem, one PutItem, one DeleteItem, a
paginated Scan, each inside `faults`, so a store's methods say only which key, which item and
which condition. Items are built and read with the store's field table (authgate.records).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any, ClassVar

from authgate.records import Item
from authgate.settings import get_settings
from authgate.stores.faults import aws_faults

Refusal = Callable[[], Exception]


class TableStore:
    """Base of a store of one table: `table_setting` names the table in settings.tables."""

    # The attribute of settings.tables that names this store's table (e.g. "clients").
    table_setting: ClassVar[str]
    # The prefix of its operations' names in StorageUnavailable (default: table_setting).
    name: ClassVar[str] = ""

    def __init__(self, dynamodb: Any = None, table: str | None = None) -> None:
        self._db = dynamodb
        self.table: str = table or getattr(get_settings().tables, self.table_setting)

    @property
    def db(self) -> Any:
        """The DynamoDB client: the injected one, or the process's (created on first use)."""
        if self._db is None:
            from authgate.aws import dynamodb

            self._db = dynamodb()
        return self._db

    def faults(self, operation: str, *, refused: Refusal | None = None) -> AbstractContextManager[None]:
        """`aws_faults` for `<name>.<operation>`: StorageUnavailable, or `refused()` on a failed condition."""
        return aws_faults(f"{self.name or self.table_setting}.{operation}", refused=refused)

    def find(self, key: Item, operation: str = "get", *, consistent: bool = True) -> Item | None:
        """The item under `key`, or None (one GetItem; strongly consistent unless told)."""
        with self.faults(operation):
            result = self.db.get_item(TableName=self.table, Key=key, **({"ConsistentRead": True} if consistent else {}))
        item: Item | None = result.get("Item")
        return item

    def upsert(self, item: Item, operation: str = "put", *, condition: str | None = None,
               names: dict[str, str] | None = None, values: Item | None = None,
               refused: Refusal | None = None) -> None:
        """Write `item` (one PutItem), only where `condition` holds when given: `refused()` otherwise."""
        with self.faults(operation, refused=refused):
            self.db.put_item(TableName=self.table, Item=item, **expression(condition, names, values))

    def destroy(self, key: Item, operation: str = "delete", *, condition: str | None = None,
                names: dict[str, str] | None = None, values: Item | None = None,
                refused: Refusal | None = None) -> None:
        """Delete the item under `key` (one DeleteItem), only where `condition` holds when given."""
        with self.faults(operation, refused=refused):
            self.db.delete_item(TableName=self.table, Key=key, **expression(condition, names, values))

    def scan(self, operation: str = "scan", *, consistent: bool = True) -> Iterator[Item]:
        """Every item of the table, page by page (a Scan: admin listings, never a request's path)."""
        kwargs: dict[str, Any] = {"TableName": self.table, **({"ConsistentRead": True} if consistent else {})}
        while True:
            with self.faults(operation):
                page = self.db.scan(**kwargs)
            yield from page.get("Items", [])
            if "LastEvaluatedKey" not in page:
                return
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def expression(condition: str | None, names: dict[str, str] | None = None,
               values: Item | None = None) -> dict[str, Any]:
    """The condition parameters of a write, leaving out what is not given (DynamoDB refuses empty maps)."""
    params: dict[str, Any] = {}
    if condition is not None:
        params["ConditionExpression"] = condition
    if names:
        params["ExpressionAttributeNames"] = names
    if values:
        params["ExpressionAttributeValues"] = values
    return params
