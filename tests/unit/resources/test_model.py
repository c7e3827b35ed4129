"""authgate.resources.model: a registered resource's rules, its DynamoDB item and its public view."""

from __future__ import annotations

from authgate.resources.model import Resource, from_item, to_item

MCP = Resource("https://mcp.example.com/mcp", ("mcp:read", "mcp:write"), ("demo",), "rs-1", 1_750_000_000)


def test_the_item_round_trips_and_spells_every_stored_field() -> None:
    item = to_item(MCP)
    assert item == {"resource": {"S": MCP.resource}, "scopes": {"L": [{"S": "mcp:read"}, {"S": "mcp:write"}]},
                    "tenants": {"L": [{"S": "demo"}]}, "introspection_client_id": {"S": "rs-1"},
                    "created_at": {"N": "1750000000"}}
    assert from_item(item) == MCP
    # An item written before a field existed reads with its default.
    assert from_item({"resource": {"S": MCP.resource}}) == Resource(MCP.resource, ())


def test_public_view() -> None:
    assert MCP.public_view() == {"resource": MCP.resource, "scopes": ["mcp:read", "mcp:write"], "tenants": ["demo"],
                                 "introspection_client_id": "rs-1", "created_at": 1_750_000_000, "name": "",
                                 "description": "", "scope_descriptions": {}, "may_delegate_to": [],
                                 "authorization_details_types": {},
                                 "builtin": False}
    assert Resource("https://a.example/", ("x",), builtin=True).public_view()["introspection_client_id"] is None


def test_a_name_a_description_and_scope_descriptions_are_stored_and_shown() -> None:
    """What the consent page shows (docs/resources.md): a DynamoDB map of scope -> text."""
    files = MCP._replace(name="Files", description="The files of your team.",
                         scope_descriptions=(("mcp:read", "Read your files"),))
    item = to_item(files)
    assert (item["name"], item["description"], item["scope_descriptions"]) == (
        {"S": "Files"}, {"S": "The files of your team."}, {"M": {"mcp:read": {"S": "Read your files"}}})
    assert from_item(item) == files
    assert files.public_view()["scope_descriptions"] == {"mcp:read": "Read your files"}
    assert (files.describes("mcp:read"), files.describes("mcp:write")) == ("Read your files", "")


def test_tenants() -> None:
    assert MCP.allows_tenant("demo") and not MCP.allows_tenant("acme")
    assert MCP._replace(tenants=()).allows_tenant("acme")
