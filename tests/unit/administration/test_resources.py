"""authgate.administration.resources: registering, changing and deleting a resource against moto, with the
refusals `authgate resources` and the console both say (the checks of what is typed: tests/unit/admin/
test_resource_input.py)."""

from __future__ import annotations

import pytest

from authgate.administration.input import InvalidInput
from authgate.administration.resources import (
    Change,
    Wording,
    create,
    delete,
    deleted,
    detail_type,
    get,
    listed,
    update,
)
from authgate.resources.errors import ResourceExists, ResourceNotFound

MCP = "https://mcp.example.com/mcp"


@pytest.fixture
def tenants(aws: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches
    from authgate.stores.tenants import TenantStore
    from authgate.tenants.model import Tenant

    monkeypatch.setenv("AUTHGATE_ISSUER", "http://127.0.0.1:3000")
    caches.reset()
    for tenant in ("demo", "acme"):
        TenantStore().put(Tenant(tenant))


def test_create_registers_the_resource_and_its_introspection_client_with_a_secret_once(tenants: None) -> None:
    from authgate.clients.model import client_secret_matches
    from authgate.stores.clients import ClientStore

    resource, secret = create(MCP, "mcp:read mcp:write", "demo, acme", Wording("Files", None, ["mcp:read=Read"]),
                              ["http://127.0.0.1:3000/charges"], local=True)
    assert (resource.resource, resource.scopes, resource.tenants, resource.name, resource.scope_descriptions,
            resource.may_delegate_to) == (MCP, ("mcp:read", "mcp:write"), ("demo", "acme"), "Files",
                                          (("mcp:read", "Read"),), ("http://127.0.0.1:3000/charges",))
    assert get(MCP) == resource
    assert secret is not None and client_secret_matches(ClientStore().get(resource.introspection_client_id), secret)
    assert [r.resource for r in listed()] == ["http://127.0.0.1:3000/charges", MCP]
    with pytest.raises(ResourceExists, match=f"resource {MCP!r} is already registered"):
        create(MCP, "mcp:read", local=True)


@pytest.mark.parametrize(("uri", "scopes", "tenant_list", "targets", "message"), [
    ("http://127.0.0.1:3000/charges", "x", "", None, "http://127.0.0.1:3000/charges is the charges API, built in"),
    ("http://127.0.0.1:8080/mcp", "x", "", None, "http is accepted on the local stack only"),
    (MCP, "x", "nosuch", None, "tenant 'nosuch' does not exist here (see `authgate tenants list`)"),
    (MCP, "x", "", ["https://other.example.com/"], ("--may-delegate-to 'https://other.example.com/' is not a "
                                                   "registered resource (see `authgate resources list`)")),
    (MCP, "", "", None, "--scopes must name at least one scope"),
])
def test_create_refuses_and_writes_nothing(tenants: None, uri: str, scopes: str, tenant_list: str,
                                           targets: list[str] | None, message: str) -> None:
    from authgate.stores.clients import ClientStore

    clients = len(list(ClientStore().scan()))
    with pytest.raises(InvalidInput) as refused:
        create(uri, scopes, tenant_list, may_delegate_to=targets, local=uri != "http://127.0.0.1:8080/mcp")
    assert message in str(refused.value)
    assert get(MCP) is None and len(list(ClientStore().scan())) == clients


def test_update_changes_what_it_is_given_and_keeps_the_rest(tenants: None) -> None:
    created = create(MCP, "mcp:read mcp:write", "demo", Wording("Files", "Yours.", ["mcp:write=Write"]),
                     local=True).resource
    schema = detail_type("file_access", '{"type": "object"}', "--schema 'f.json'")
    assert schema == ("file_access", '{"type":"object"}')
    updated = update(MCP, Change(scopes="mcp:read", tenants="", detail_type=schema), local=True)
    assert updated == get(MCP) == created._replace(scopes=("mcp:read",), tenants=(), scope_descriptions=(),
                                                   authorization_details_types=(schema,))
    removed = update(MCP, Change(remove_detail_type="file_access", wording=Wording(name="")), local=True)
    assert (removed.authorization_details_types, removed.name, removed.description) == ((), "", "Yours.")
    for change, message in ((Change(may_delegate_to=[MCP]), "a resource cannot delegate to itself"),
                            (Change(remove_detail_type="x"), "the resource has no authorization details type 'x'"),
                            (Change(tenants="nosuch"), "tenant 'nosuch' does not exist here")):
        with pytest.raises(InvalidInput, match=message):
            update(MCP, change, local=True)
    assert get(MCP) == removed
    with pytest.raises(ResourceNotFound):
        update("https://nosuch.example.com/", Change(scopes="a"), local=True)


@pytest.mark.parametrize(("name", "schema", "message"), [
    ("charge", "{}", "'charge' is the charges API's own type"),
    ("a b", "{}", "authorization details type 'a b' must be 1-128 visible characters without spaces"),
    ("x", "{", "--schema 'f.json' is not JSON: "),
    ("x", '{"type": 7}', "--schema 'f.json': "),
])
def test_a_detail_type_is_a_named_json_schema(name: str, schema: str, message: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        detail_type(name, schema, "--schema 'f.json'")
    assert str(refused.value).startswith(message)


def test_delete_removes_the_resource_and_its_introspection_client(tenants: None) -> None:
    from authgate.stores.clients import ClientStore

    resource = create(MCP, "mcp:read", local=True).resource
    assert delete(MCP) == resource
    assert get(MCP) is None and ClientStore().get(resource.introspection_client_id) is None
    assert deleted(resource) == (f"resource {MCP} deleted, and its introspection client "
                                 f"{resource.introspection_client_id}; tokens already issued for it expire on their own")
    with pytest.raises(ResourceNotFound):
        delete(MCP)
