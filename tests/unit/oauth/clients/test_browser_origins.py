"""oauth.clients.browser_origins: an origin is allowed when a public client has a redirect URI on it; answers kept 60 s, bounded."""

from __future__ import annotations

import pytest

from authgate.clock import ManualClock
from authgate.oauth.clients import browser_origins
from authgate.oauth.clients.browser_origins import MAX_ENTRIES, TTL_SECONDS, origin_allowed


@pytest.fixture
def reads(dynamodb_calls: list[str]) -> list[str]:
    """Every DynamoDB operation the shared client makes."""
    return dynamodb_calls


def register(client_id: str, client_type: str, uri: str) -> None:
    from authgate.stores.clients import ClientStore

    ClientStore().create(tenant_id="demo", client_id=client_id, client_type=client_type, redirect_uris=[uri],
                         grant_types=["authorization_code"])


def test_a_public_clients_origin_is_allowed_and_a_confidential_clients_is_not(aws: None) -> None:
    register("spa", "public", "https://spa.example:8443/cb")
    register("web", "confidential", "https://server.example/cb")
    assert origin_allowed("https://spa.example:8443") is True
    assert origin_allowed("https://spa.example") is False  # the port is part of the origin (RFC 6454)
    assert origin_allowed("https://server.example") is False


def test_an_answer_is_one_get_item_then_kept_for_the_ttl(reads: list[str]) -> None:
    clock = ManualClock(1000.0)
    assert origin_allowed("https://new.example", clock) is False
    assert reads == ["GetItem"]
    register("spa", "public", "https://new.example/cb")
    clock.advance(TTL_SECONDS - 1)
    assert origin_allowed("https://new.example", clock) is False  # still the cached answer
    clock.advance(1)
    assert origin_allowed("https://new.example", clock) is True  # a new app is allowed within the TTL
    assert reads.count("GetItem") == 2 and "Scan" not in reads


@pytest.mark.slow
def test_made_up_origins_cannot_grow_the_cache_past_its_bound(aws: None) -> None:
    for n in range(MAX_ENTRIES + 20):
        origin_allowed(f"https://made-up-{n}.example")
    assert len(browser_origins._cache()) == MAX_ENTRIES
