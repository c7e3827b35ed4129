"""Fixtures of the functional tests shared by several files: clients that register themselves."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.document_server import DocumentServer, document_server, trust_documents
from tests.functional.authorize_support import Browser
from tests.upstream_oidc import ScriptedProvider


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    """An HTTPS server of Client ID Metadata Documents on 127.0.0.1, with its own test CA (one per module)."""
    with document_server(tmp_path_factory.mktemp("tls")) as srv:
        yield srv


@pytest.fixture
def cimd(server: DocumentServer, monkeypatch: pytest.MonkeyPatch, browser: Browser) -> DocumentServer:
    """The deployment switch on, the local loopback exception, the test CA trusted (SSL_CERT_FILE)."""
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_CLIENT_METADATA_DOCUMENTS", "true")
    monkeypatch.setenv("AUTHGATE_ALLOW_LOOPBACK_OUTBOUND", "true")
    monkeypatch.setenv("SSL_CERT_FILE", str(server.ca))
    caches.reset()
    server.routes.clear()
    server.requests.clear()
    return server


@pytest.fixture
def dcr(monkeypatch: pytest.MonkeyPatch, browser: Browser) -> None:
    """Dynamic client registration (RFC 7591) switched on for the deployment."""
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_DYNAMIC_REGISTRATION", "true")
    caches.reset()


@pytest.fixture
def localhost(monkeypatch: pytest.MonkeyPatch, browser: Browser) -> Iterator[None]:
    """The stack's issuer on localhost: a host name WebAuthn accepts as the relying party id."""
    from authgate import caches
    from tests.functional.passkey_support import ISSUER

    monkeypatch.setenv("AUTHGATE_ISSUER", ISSUER)
    caches.reset()
    yield
    caches.reset()


@pytest.fixture
def op(server: DocumentServer, browser: Browser, monkeypatch: pytest.MonkeyPatch) -> ScriptedProvider:
    """Tenant demo's upstream OpenID Provider "democorp" (scripted, on the module's HTTPS server), its record stored."""
    from authgate.stores.identity_providers import IdentityProviderStore

    trust_documents(server, monkeypatch)
    provider = ScriptedProvider(server, "democorp")
    IdentityProviderStore().create(provider.idp(label="Demo Corp SSO"))
    return provider
