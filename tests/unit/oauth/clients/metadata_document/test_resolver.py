"""oauth.clients.metadata_document.resolver: ClientsTable is the cache of fetched documents (draft 5, 5.2)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from authgate.clients.errors import MetadataRefused
from authgate.clients.model import DOCUMENT_SOURCE, Client
from authgate.clock import ManualClock
from authgate.oauth.clients.metadata_document.budget import REFRESH, FetchBudget
from authgate.oauth.clients.metadata_document.resolver import (
    RECORD_GRACE,
    MetadataClients,
    is_metadata_client,
    servable_stale,
    usable,
)
from authgate.settings import get_settings
from authgate.stores.clients import ClientStore
from tests.document_server import DocumentServer, Route, document_server, trust_documents

NOW = 1_800_000_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    with document_server(tmp_path_factory.mktemp("tls")) as srv:
        yield srv


@pytest.fixture
def documents(aws: None, server: DocumentServer, monkeypatch: pytest.MonkeyPatch, clock: ManualClock) -> DocumentServer:
    clock.advance(NOW - clock())
    return trust_documents(server, monkeypatch)


def record(refresh_at: int, created_at: int = NOW - 600) -> Client:
    return Client(client_id="https://tools.example/a.json", tenant_id="", environment="local", client_type="public",
                  secret_hash=None, redirect_uris=("http://127.0.0.1:9/cb",), grant_types=("authorization_code",),
                  scopes=(), created_at=created_at, source=DOCUMENT_SOURCE, refresh_at=refresh_at)


def test_what_needs_no_fetch_and_what_may_be_served_stale() -> None:
    admin = record(0)._replace(source="")
    assert usable(admin, NOW) and usable(record(NOW + 1), NOW) and not usable(record(NOW), NOW)
    assert not usable(None, NOW)
    # Stale for as long again as it was fresh (600 s here), never past the cache's ceiling.
    assert servable_stale(record(NOW - 10), NOW, 86400) and not servable_stale(record(NOW - 600), NOW, 86400)
    assert not servable_stale(record(NOW - 10), NOW, 5)


def test_an_https_client_id_is_a_document_only_where_the_deployment_fetches(aws: None,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    assert not is_metadata_client("https://tools.example/a.json")
    monkeypatch.setenv("AUTHGATE_CLIENT_METADATA_DOCUMENTS", "true")
    caches.reset()
    assert is_metadata_client("https://tools.example/a.json") and not is_metadata_client("demo-web")


def test_a_fetched_document_is_cached_with_its_freshness_and_a_ttl(documents: DocumentServer) -> None:
    url = documents.document("/fresh.json")  # Cache-Control: max-age=600
    fetched = MetadataClients(source="192.0.2.1").get(url)
    assert fetched is not None
    assert (fetched.refresh_at, fetched.expires_at) == (NOW + 600, NOW + 600 + RECORD_GRACE)
    assert ClientStore().get(url) == fetched
    assert MetadataClients(source="192.0.2.1").get(url) == fetched and len(documents.requests) == 1


def test_a_stale_record_is_fetched_again_and_served_stale_only_when_authgates_budget_refuses(
        documents: DocumentServer, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    url = documents.document("/stale.json")
    first = MetadataClients(source="192.0.2.1").get(url)
    assert first is not None
    clock.advance(601)
    again = MetadataClients(source="192.0.2.1").refreshed(url, first)
    assert again is not None and again.refresh_at == NOW + 601 + 600 and len(documents.requests) == 2
    monkeypatch.setenv("AUTHGATE_CLIENT_METADATA_FETCH_LIMIT", "1")
    caches.reset()
    clock.advance(601)
    FetchBudget(get_settings()).host(REFRESH, "127.0.0.1")  # the host's one refresh of this minute, spent
    assert MetadataClients(source="192.0.2.1").refreshed(url, again) == again  # served stale, not fetched
    assert len(documents.requests) == 2
    documents.routes["/stale.json"] = Route(b"{}", 404)
    monkeypatch.setenv("AUTHGATE_CLIENT_METADATA_FETCH_LIMIT", "30")
    caches.reset()
    with pytest.raises(MetadataRefused) as refused:  # its host refuses it: never served stale
        MetadataClients(source="192.0.2.1").refreshed(url, again)
    assert refused.value.code == "client_metadata_unreachable"


def test_an_administrators_client_under_an_https_id_is_never_fetched_over(documents: DocumentServer) -> None:
    url = documents.document("/admin.json")
    ClientStore().create(tenant_id="demo", client_id=url, redirect_uris=["https://app.example/cb"],
                         grant_types=["authorization_code"])
    found = MetadataClients(source="192.0.2.1").get(url)
    assert found is not None and found.source == "" and documents.requests == []
    with pytest.raises(MetadataRefused) as taken:
        MetadataClients(source="192.0.2.1").fetch(url)
    assert (taken.value.code, taken.value.detail) == (
        "client_metadata_not_allowed",
        "This client_id is registered on this server by an administrator; it is not resolved as a metadata document.")
