"""Fixtures of the client tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture
def dynamodb_calls(aws: None) -> Iterator[list[str]]:
    """Every DynamoDB operation the shared client makes, from here on."""
    from authgate import aws as aws_clients

    calls: list[str] = []

    def record(model: Any, **_: Any) -> None:
        calls.append(model.name)

    client = aws_clients.dynamodb()
    client.meta.events.register("before-call.dynamodb", record)
    yield calls
    client.meta.events.unregister("before-call.dynamodb", record)
