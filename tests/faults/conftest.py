"""Fixtures of the fault-injection tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.faults.injection import Outcomes


@pytest.fixture
def outcomes() -> Iterator[Outcomes]:
    """Collects what each injected fault left behind; the table is printed after the test (-s shows it)."""
    found = Outcomes()
    yield found
    print("\n" + "\n".join(found.table()))
