"""Counts DynamoDB API calls with botocore event hooks (no mocking: every call still happens)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class DynamoDBCalls:
    """Operation names seen on the shared DynamoDB client (authgate.aws.dynamodb()) while active."""

    def __init__(self) -> None:
        self.operations: list[str] = []

    def _seen(self, model: Any = None, **_: Any) -> None:
        self.operations.append(model.name)

    @property
    def total(self) -> int:
        return len(self.operations)

    def by_operation(self) -> dict[str, int]:
        return dict(Counter(self.operations))

    def __str__(self) -> str:
        return f"{self.total} ({', '.join(f'{k} x{v}' for k, v in self.by_operation().items())})"


@contextmanager
def counting(client: Any = None) -> Iterator[DynamoDBCalls]:
    """`with counting() as calls: ...` then `calls.total`, `calls.operations`."""
    from authgate import aws

    client = client or aws.dynamodb()
    calls = DynamoDBCalls()
    client.meta.events.register("before-call.dynamodb", calls._seen, unique_id=f"count-{id(calls)}")
    try:
        yield calls
    finally:
        client.meta.events.unregister("before-call.dynamodb", unique_id=f"count-{id(calls)}")
