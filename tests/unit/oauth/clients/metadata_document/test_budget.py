"""oauth.clients.metadata_document.budget: who pays for a fetch (draft-ietf-oauth-client-id-metadata-document-02 8.6)."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.clients.errors import MetadataRefused
from authgate.clock import ManualClock, using
from authgate.oauth.clients.metadata_document.budget import NEW, REFRESH, WINDOW, FetchBudget
from authgate.settings import Settings


def budget(**limits: int) -> FetchBudget:
    return FetchBudget(Settings(**{"client_metadata_source_limit": 100, "client_metadata_fetch_limit": 100,
                                   "client_metadata_deployment_limit": 100, **limits}))


def spent(call: Any, *args: Any) -> MetadataRefused:
    with pytest.raises(MetadataRefused) as caught:
        call(*args)
    assert (caught.value.code, caught.value.internal) == ("client_metadata_rate_limited", caught.value.internal)
    assert 0 < caught.value.retry_after <= WINDOW
    return caught.value


def test_a_new_document_spends_its_requesters_then_its_hosts_then_the_deployments(aws: None) -> None:
    with using(ManualClock(1_800_000_000.0)):
        by_source = budget(client_metadata_source_limit=1)
        by_source.document(NEW, "tools.example", "192.0.2.1")
        refused = spent(by_source.document, NEW, "other.example", "192.0.2.1")
        assert refused.detail == ("Too many new client metadata documents were asked for from this address; "
                                  f"retry after {refused.retry_after} seconds.")
        by_source.document(NEW, "other.example", "192.0.2.2")  # another address: its own budget
        by_host = budget(client_metadata_fetch_limit=1)
        by_host.document(NEW, "host.example", "192.0.2.3")
        assert spent(by_host.document, NEW, "host.example", "192.0.2.4").detail.startswith(
            "Too many fetches of client metadata documents from host.example; retry after")


def test_a_refresh_never_spends_what_new_documents_can(aws: None) -> None:
    with using(ManualClock(1_800_000_000.0)):
        limited = budget(client_metadata_fetch_limit=1, client_metadata_source_limit=1)
        limited.document(NEW, "tools.example", "192.0.2.1")
        limited.document(REFRESH, "tools.example", "192.0.2.1")  # its host's refreshes and no source budget
        spent(limited.document, REFRESH, "tools.example", "192.0.2.9")
    with using(ManualClock(1_800_003_600.0)):  # an hour on: the deployment's windows start afresh
        deployment = budget(client_metadata_deployment_limit=1)
        deployment.document(REFRESH, "a.example", "")
        deployment.document(NEW, "b.example", "")  # the deployment counts each kind apart
        assert spent(deployment.document, NEW, "c.example", "").detail.startswith(
            "authgate is fetching as many client metadata documents as it allows")


def test_a_jwks_uri_is_a_fetch_from_its_host(aws: None) -> None:
    with using(ManualClock(1_800_000_000.0)):
        keys = budget(client_metadata_fetch_limit=1)
        keys.host(NEW, "keys.example")
        spent(keys.host, NEW, "keys.example")
