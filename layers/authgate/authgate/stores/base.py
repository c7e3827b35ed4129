"""The shape every table store shares: a DynamoDB client (injected, or the process's on first use),
its table (injected, or from settings) and the faults mapping named after the store."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, ClassVar

from authgate.settings import get_settings
from authgate.stores.exceptions import StoreError
from authgate.stores.faults import aws_faults


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

    def faults(self, operation: str, *,
               refused: Callable[[], StoreError] | None = None) -> AbstractContextManager[None]:
        """`aws_faults` for `<name>.<operation>`: StorageUnavailable, or `refused()` on a failed condition."""
        return aws_faults(f"{self.name or self.table_setting}.{operation}", refused=refused)
