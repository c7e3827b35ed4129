"""authgate.stores.resources and resource_cache against moto's DynamoDB (tables from template.yaml)."""

from __future__ import annotations

from collections import Counter

import pytest

from authgate.clock import ManualClock
from authgate.resources.errors import ResourceExists, ResourceNotFound
from authgate.resources.model import Resource
from authgate.stores import resource_cache
from authgate.stores.resources import ResourceStore

MCP = Resource("https://mcp.example.com/mcp", ("mcp:read", "mcp:write"), ("demo",), "rs-1", 1_750_000_000)


def test_create_get_list_and_the_introspector_record(aws: None) -> None:
    store = ResourceStore()
    store.create(MCP)
    assert store.get(MCP.resource) == MCP
    assert store.introspected_by("rs-1") == MCP.resource
    assert store.introspected_by("rs-2") is None
    # The introspector record is never listed, nor read as a resource.
    assert list(store.list()) == [MCP]
    assert store.get("introspector rs-1") is None


def test_create_never_overwrites(aws: None) -> None:
    store = ResourceStore()
    store.create(MCP)
    with pytest.raises(ResourceExists):
        store.create(MCP._replace(scopes=("x",), introspection_client_id="rs-2"))
    assert store.get(MCP.resource) == MCP
    assert store.introspected_by("rs-2") is None  # the transaction wrote nothing


def test_update_and_delete_take_the_introspection_client_along(aws: None) -> None:
    from authgate.stores.clients import ClientStore

    ClientStore().create(client_id="rs-1", tenant_id="", grant_types=())
    store = ResourceStore()
    store.create(MCP)
    store.update(MCP._replace(tenants=()))
    assert store.get(MCP.resource) == MCP._replace(tenants=())
    store.delete(MCP)
    assert (store.get(MCP.resource), store.introspected_by("rs-1"), ClientStore().get("rs-1")) == (None, None, None)
    with pytest.raises(ResourceNotFound):
        store.delete(MCP)
    with pytest.raises(ResourceNotFound):
        store.update(MCP)


def test_the_cache_reads_once_per_ttl(reads: Counter[str], clock: ManualClock) -> None:
    ResourceStore().create(MCP)
    reads.clear()
    assert resource_cache.get_resource(MCP.resource) == MCP
    assert resource_cache.introspected_by("rs-1") == MCP.resource
    clock.advance(resource_cache.TTL_SECONDS - 1)
    assert resource_cache.get_resource(MCP.resource) == MCP
    assert resource_cache.introspected_by("rs-1") == MCP.resource
    assert reads == Counter({"GetItem": 2})
    clock.advance(1)
    assert resource_cache.get_resource("https://unknown.example/") is None
    assert resource_cache.get_resource(MCP.resource) == MCP
    assert reads == Counter({"GetItem": 4})
