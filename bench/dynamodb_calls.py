"""Counts DynamoDB API calls with botocore event hooks (no mocking: every call still happens)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
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


def token_requests(handler: Any, cases: dict[str, Callable[[], dict[str, Any]]], rounds: int,
                   statuses: dict[str, int] | None = None) -> dict[str, dict[str, Any]]:
    """Each case's event (built by its callable, untimed) through `handler`, `rounds` times, interleaved so every
    case sees the same table sizes (moto's transactions copy the table): p50/p95 latency and the DynamoDB calls
    of one request, by operation. Every answer must be 200, or the case's status in `statuses`."""
    timings: dict[str, list[float]] = {name: [] for name in cases}
    calls: dict[str, DynamoDBCalls] = {}
    for _ in range(rounds):
        for name, prepare in cases.items():
            event = prepare()
            with counting() as seen:
                start = time.perf_counter()
                result = handler(event, None)
                timings[name].append((time.perf_counter() - start) * 1000)
            assert result["statusCode"] == (statuses or {}).get(name, 200), result["body"]
            calls[name] = seen
    out: dict[str, dict[str, Any]] = {}
    for name, values in timings.items():
        values.sort()
        out[name] = {"p50_ms": round(values[rounds // 2], 2), "p95_ms": round(values[int(rounds * 0.95)], 2),
                     "dynamodb_calls": calls[name].total, "dynamodb_operations": calls[name].by_operation()}
    return out
