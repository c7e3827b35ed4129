"""One strongly consistent BatchGetItem for the reads of several stores (the per-request budget).

A request that needs items from several tables (the bearer guard's revocation ids, the client's
record on a cache miss, the charge it reads or the idempotency record it may replay) registers
each key with `add()`, runs the batch once with `run()`, then asks each handle for its item:

    reads = BatchRead()
    charge = reads.add(tables.charges, {"tenant_id": ..., "charge_id": ...})
    revoked = reads.add(tables.revocations, {"revocation_id": ...})
    reads.run()          # one call for both tables
    charge.item          # the raw item, or None

Keys are deduplicated (BatchGetItem rejects a repeated key). Throttled keys come back as
UnprocessedKeys rather than an error: they are asked for once more, then it is an outage like
any other throttle (StorageUnavailable).
"""

from __future__ import annotations

from typing import Any

from authgate import aws
from authgate.stores.faults import aws_faults, unavailable

Key = dict[str, dict[str, str]]
KeyId = tuple[tuple[str, str, str], ...]
Item = dict[str, Any]
MAX_KEYS = 100  # BatchGetItem's limit per call


class Pending:
    """A key registered in a BatchRead; `item` is its item (None when absent) once the batch ran."""

    __slots__ = ("_batch", "_id", "table")

    def __init__(self, batch: BatchRead, table: str, key_id: KeyId) -> None:
        self._batch, self.table, self._id = batch, table, key_id

    @property
    def item(self) -> Item | None:
        return self._batch.found(self.table, self._id)


class BatchRead:
    """Keys of several tables, read in ONE strongly consistent BatchGetItem."""

    def __init__(self, dynamodb: Any = None, operation: str = "batch_get") -> None:
        self._client = dynamodb
        self._operation = operation
        self._keys: dict[str, dict[KeyId, Key]] = {}
        self._found: dict[str, dict[KeyId, Item]] | None = None

    def add(self, table: str, key: Key) -> Pending:
        """Register `key` of `table`; read when the batch runs."""
        if self._found is not None:
            raise RuntimeError("BatchRead.add after run(): register every key first")
        key_id = _key_id(key)
        self._keys.setdefault(table, {})[key_id] = key
        if sum(len(keys) for keys in self._keys.values()) > MAX_KEYS:
            raise ValueError(f"a BatchGetItem reads at most {MAX_KEYS} keys")
        return Pending(self, table, key_id)

    def run(self) -> None:
        """Read every registered key (no call when there is none); idempotent."""
        if self._found is not None:
            return
        found: dict[str, dict[KeyId, Item]] = {table: {} for table in self._keys}
        request: dict[str, Any] = {table: {"Keys": list(keys.values()), "ConsistentRead": True}
                                   for table, keys in self._keys.items()}
        for _attempt in range(2):
            if not request:
                break
            with aws_faults(self._operation):
                result = (self._client or aws.dynamodb()).batch_get_item(RequestItems=request)
            for table, items in result.get("Responses", {}).items():
                names = _key_names(self._keys[table])
                for item in items:
                    found[table][_key_id({name: item[name] for name in names if name in item})] = item
            request = result.get("UnprocessedKeys") or {}
        if request:
            raise unavailable(self._operation, "unprocessed keys")
        self._found = found

    def found(self, table: str, key_id: KeyId) -> Item | None:
        if self._found is None:
            raise RuntimeError("BatchRead: read an item before run()")
        return self._found.get(table, {}).get(key_id)


def _key_id(key: Key) -> KeyId:
    # ((name, type, value), ...) in name order: hashable, and equal for equal keys.
    if len(key) == 1:  # most tables have a partition key only
        ((name, value),) = key.items()
        ((kind, text),) = value.items()
        return ((name, kind, text),)
    return tuple(sorted((name, *next(iter(value.items()))) for name, value in key.items()))


def _key_names(keys: dict[KeyId, Key]) -> tuple[str, ...]:
    first = next(iter(keys.values()))
    return tuple(first)
