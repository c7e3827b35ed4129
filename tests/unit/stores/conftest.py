"""Fixtures of the store tests."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest


@pytest.fixture
def reads(aws: None) -> Counter[str]:
    """The DynamoDB calls the runtime makes from now on, counted by operation name (GetItem, Query, ...)."""
    from authgate.aws import dynamodb

    seen: Counter[str] = Counter()

    def count(model: Any, **_: Any) -> None:
        seen[model.name] += 1

    dynamodb().meta.events.register("before-call.dynamodb", count)
    return seen
