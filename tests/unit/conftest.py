"""Fixtures of the unit tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.demo import ISSUER


@pytest.fixture(autouse=True)
def issuer(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The issuer error documents and redirects name (the local stack's, as everywhere in the tests)."""
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_ISSUER", ISSUER)
    caches.reset()
    yield
    caches.reset()
