"""Fixtures of the unit tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.demo import ISSUER
from tests.document_server import DocumentServer, document_server


@pytest.fixture(autouse=True)
def issuer(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The issuer error documents and redirects name (the local stack's, as everywhere in the tests)."""
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_ISSUER", ISSUER)
    caches.reset()
    yield
    caches.reset()


@pytest.fixture(scope="module")
def document_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    """A real HTTPS server on 127.0.0.1 with a CA of its own (tests/document_server.py), one per test module."""
    with document_server(tmp_path_factory.mktemp("tls")) as server:
        yield server
