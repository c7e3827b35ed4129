"""oauth.clients.lookup: one way to find a client, whatever its source; documents fetched only where a flow asks."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from authgate.clients.errors import MetadataRefused
from authgate.clients.model import DOCUMENT_SOURCE, Client
from authgate.oauth.clients.lookup import ClientLookup
from authgate.stores.clients import ClientStore
from tests.document_server import DocumentServer, Route, document_server, trust_documents


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    with document_server(tmp_path_factory.mktemp("tls")) as srv:
        yield srv


@pytest.fixture
def documents(aws: None, server: DocumentServer, monkeypatch: pytest.MonkeyPatch) -> DocumentServer:
    """Client ID Metadata Documents switched on, the local loopback exception, the test CA trusted."""
    return trust_documents(server, monkeypatch)


def test_an_administrators_client_is_its_record_in_this_environment(aws: None) -> None:
    ClientStore().create(tenant_id="demo", client_id="svc", environment="local", grant_types=["client_credentials"])
    ClientStore().create(tenant_id="demo", client_id="elsewhere", environment="staging")
    found = ClientLookup("192.0.2.1", fetch_documents=True).find("svc")
    assert found is not None and (found.client_id, found.source) == ("svc", "")
    assert ClientLookup().find("elsewhere") is None
    other = ClientLookup().find("elsewhere", any_environment=True)
    assert other is not None and other.environment == "staging"
    assert ClientLookup().find("nobody") is None


def test_a_document_is_fetched_where_a_flow_asks_and_is_its_record_elsewhere(documents: DocumentServer) -> None:
    url = documents.document("/agent.json")
    assert ClientLookup("192.0.2.1").find(url) is None  # never fetched: an unknown client
    assert documents.requests == []
    fetched = ClientLookup("192.0.2.1", fetch_documents=True).find(url)
    assert isinstance(fetched, Client)
    assert (fetched.client_id, fetched.source, fetched.name, fetched.tenant_id) == (url, DOCUMENT_SOURCE, "Test Agent", "")
    assert len(documents.requests) == 1
    assert ClientLookup("192.0.2.1").find(url) == fetched  # the record as it stands, no fetch
    assert ClientLookup("192.0.2.1", fetch_documents=True).find(url) == fetched  # fresh: no fetch either
    assert len(documents.requests) == 1


def test_read_with_reads_the_record_and_resolved_makes_it_the_client(documents: DocumentServer) -> None:
    from authgate.stores.limits import LimitsStore

    url = documents.document("/batch.json")
    lookup = ClientLookup("192.0.2.1", fetch_documents=True)
    table = LimitsStore().table
    record, others = lookup.read_with(url, {table: LimitsStore.item_keys(["authfail#x"])})
    assert (record, others) == (None, {table: []})
    assert documents.requests == []  # reading fetches nothing: the caller judges the counters first
    client = lookup.resolved(url, record)
    assert client is not None and client.source == DOCUMENT_SOURCE and len(documents.requests) == 1
    assert ClientLookup().resolved(url, None) is None  # no fetch where none is asked for


def test_a_document_that_cannot_be_used_is_refused_with_its_reason(documents: DocumentServer) -> None:
    documents.routes["/gone.json"] = Route(b"{}", 404)
    with pytest.raises(MetadataRefused) as refused:
        ClientLookup("192.0.2.1", fetch_documents=True).find(documents.url("/gone.json"))
    assert (refused.value.code, refused.value.detail, refused.value.retry_after) == (
        "client_metadata_unreachable",
        f"The client's metadata document at {documents.url('/gone.json')} could not be fetched.", 0)


def test_with_documents_switched_off_an_https_id_is_an_unknown_client(aws: None, server: DocumentServer) -> None:
    url = server.document("/off.json")
    server.requests.clear()
    assert ClientLookup("192.0.2.1", fetch_documents=True).find(url) is None
    assert server.requests == []
