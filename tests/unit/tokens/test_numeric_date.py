"""tokens.numeric_date (RFC 7519 2): finite, non-negative, before year 10000, and never a boolean."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.tokens.numeric_date import LATEST, numeric_date


@pytest.mark.parametrize("value", [0, 1_750_000_000, 1_750_000_000.5, LATEST])
def test_usable_dates_pass_unchanged(value: float) -> None:
    assert numeric_date(value) == value


@pytest.mark.parametrize("value", [True, False, None, "1750000000", -1, LATEST + 1, float("nan"), float("inf"),
                                   [1], {"exp": 1}])
def test_anything_else_is_none(value: object) -> None:
    assert numeric_date(value) is None


@pytest.mark.parametrize(("value", "expected"), [
    (1_750_000_000, 1_750_000_000), (1_750_000_000.5, 1_750_000_000.5), (0, 0),
    (float("nan"), None), (float("inf"), None), (float("-inf"), None), (True, None), (False, None),
    (10**30, None), (-1, None), ("1750000000", None), (None, None),
])
def test_numeric_date(value: Any, expected: Any) -> None:
    assert numeric_date(value) == expected
