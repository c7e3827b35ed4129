"""Fixtures of the functional tests shared by several files: clients that register themselves, a scripted upstream
identity provider, the device grant's client and page, and the CIBA approval channel."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.document_server import DocumentServer, document_server, trust_documents
from tests.functional.authorize_support import Browser, put_client
from tests.functional.ciba_support import ApprovalBrowser, allow_ciba, webhook_of
from tests.functional.device_support import DEVICE_GRANT, DevicePage
from tests.functional.token_support import TokenClient
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
def provider(server: DocumentServer, monkeypatch: pytest.MonkeyPatch, browser: Browser) -> ScriptedProvider:
    """A tenant's upstream OpenID Provider, IdP A, scripted on the module's HTTPS server (tests/upstream_oidc.py):
    its CA trusted and loopback allowed (the local stack's exception), no answer left from an earlier test."""
    trust_documents(server, monkeypatch)
    server.posts.clear()
    server.post_headers.clear()
    server.post_answers.clear()
    return ScriptedProvider(server, "idp-a")


@pytest.fixture
def tv(demo: Any, browser: Browser) -> str:
    """A public client of tenant demo registered for the device grant and refresh tokens (openid too)."""
    put_client(client_id="demo-tv", client_type="public", secret_hash=None, name="Living-room TV",
               grant_types=(DEVICE_GRANT, "refresh_token"),
               scopes=("charges:read", "charges:write", "openid", "profile", "offline_access"))
    return "demo-tv"


@pytest.fixture
def device_page(browser: Browser) -> DevicePage:
    return DevicePage(browser)


@pytest.fixture
def hook(server: DocumentServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, clock: ManualClock,
         tokens: TokenClient) -> Iterator[DocumentServer]:
    """demo's approval webhook on the test CA's HTTPS server (loopback: the local stack's flag), an outbox."""
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_ALLOW_LOOPBACK_OUTBOUND", "true")
    monkeypatch.setenv("SSL_CERT_FILE", str(server.ca))
    monkeypatch.setenv("AUTHGATE_OUTBOX", str(tmp_path / "outbox.jsonl"))
    caches.reset()
    allow_ciba()
    webhook_of("demo", server.url("/hook"))
    server.posts.clear()
    server.post_headers.clear()
    yield server


@pytest.fixture
def approver(demo: Any, invoke: Any) -> ApprovalBrowser:
    return ApprovalBrowser(invoke)


@pytest.fixture
def op(server: DocumentServer, browser: Browser, monkeypatch: pytest.MonkeyPatch) -> ScriptedProvider:
    """Tenant demo's upstream OpenID Provider "democorp" (scripted, on the module's HTTPS server), its record stored."""
    from authgate.stores.identity_providers import IdentityProviderStore

    trust_documents(server, monkeypatch)
    provider = ScriptedProvider(server, "democorp")
    IdentityProviderStore().create(provider.idp(label="Demo Corp SSO"))
    return provider
