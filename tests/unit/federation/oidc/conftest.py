"""Fixtures of the relying party's unit tests: a scripted OpenID Provider on a real HTTPS server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.document_server import DocumentServer, document_server, trust_documents
from tests.upstream_oidc import ScriptedProvider


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    with document_server(tmp_path_factory.mktemp("tls")) as srv:
        yield srv


@pytest.fixture
def trusted(server: DocumentServer, monkeypatch: pytest.MonkeyPatch) -> DocumentServer:
    """The server's CA trusted and loopback allowed (the local stack's exception); a sealing key; nothing served."""
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "s" * 48)
    trust_documents(server, monkeypatch)
    server.posts.clear()
    server.post_headers.clear()
    server.post_answers.clear()
    return server


@pytest.fixture
def op(trusted: DocumentServer) -> ScriptedProvider:
    """IdP A."""
    return ScriptedProvider(trusted, "idp-a")
