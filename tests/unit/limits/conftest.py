"""Fixtures for the limiter: a manual clock, the DynamoDB client, call counting, fault injection.

Faults are injected with botocore's event hooks on the real client (nothing of ours is mocked).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from authgate import clock as limiter_clock


@pytest.fixture
def clock() -> Iterator[limiter_clock.ManualClock]:
    manual = limiter_clock.ManualClock()
    with limiter_clock.using(manual):
        yield manual


@pytest.fixture
def db(aws: None) -> Any:
    from authgate.aws import dynamodb

    return dynamodb()


@pytest.fixture
def calls(db: Any) -> Iterator[list[str]]:
    """Names of the DynamoDB operations made through the shared client, in order."""
    seen: list[str] = []

    def count(model: Any, **_: Any) -> None:
        seen.append(model.name)

    db.meta.events.register("before-call.dynamodb", count)
    yield seen
    db.meta.events.unregister("before-call.dynamodb", count)


@pytest.fixture
def inject(db: Any) -> Iterator[Callable[[str, BaseException], None]]:
    """inject("UpdateItem", exc): every later call of that operation raises exc."""
    hooks: list[tuple[str, Callable[..., Any]]] = []

    def add(operation: str, exc: BaseException) -> None:
        def fail(**_: Any) -> None:
            raise exc

        event = f"before-call.dynamodb.{operation}"
        db.meta.events.register(event, fail)
        hooks.append((event, fail))

    yield add
    for event, hook in hooks:
        db.meta.events.unregister(event, hook)
