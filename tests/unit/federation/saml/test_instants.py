"""SAML time instants (Core 1.3.3)."""

from __future__ import annotations

import pytest

from authgate.federation.saml.instants import read, write


@pytest.mark.parametrize(("value", "seconds"), [
    ("2025-06-15T15:06:40Z", 1_750_000_000),
    ("2025-06-15T15:06:40.9999999Z", 1_750_000_000),
    ("2025-06-15T15:06:40.123+00:00", 1_750_000_000),
    (" 2025-06-15T15:06:40 ", 1_750_000_000),
])
def test_utc_instants_are_read(value: str, seconds: int) -> None:
    assert read(value) == seconds


@pytest.mark.parametrize("value", [None, "", "2025-06-15", "2025-06-15T15:06:40+02:00", "2025-13-40T15:06:40Z",
                                   "1750000000", "2025-06-15T15:06:40ZZ"])
def test_anything_else_is_not_an_instant(value: str | None) -> None:
    assert read(value) is None


def test_written_instants_read_back() -> None:
    assert write(1_750_000_000) == "2025-06-15T15:06:40Z"
    assert read(write(1_750_000_123)) == 1_750_000_123
