"""authgate.oauth.resource_indicator: which resource a request names, and which scopes a client may ask of it."""

from __future__ import annotations

import pytest

from authgate.clients.model import Client
from authgate.errors import ApiError
from authgate.oauth.resource_indicator import (
    builtin_resource,
    client_may_request,
    granted_resource,
    requested_resource,
    resolve,
)
from authgate.resources.model import Resource
from authgate.stores.resources import ResourceStore

ISSUER = "https://auth.example.com"
MCP = Resource("https://mcp.example.com/mcp", ("mcp:read", "mcp:write"), ("demo",))


def client(*scopes: str) -> Client:
    return Client("c", "demo", "local", "confidential", None, (), ("client_credentials",), scopes)


@pytest.mark.parametrize(("values", "expected"), [([], None), ([""], None), ([MCP.resource], MCP.resource)])
def test_requested_resource(values: list[str], expected: str | None) -> None:
    assert requested_resource(values, ISSUER) == expected


@pytest.mark.parametrize("values", [["/relative"], ["https://a.example/x#f"], ["urn"], ["https://a/", "https://b/"],
                                    ["http://[::1"]])
def test_malformed_or_several_resources_are_invalid_target(values: list[str]) -> None:
    with pytest.raises(ApiError) as raised:
        requested_resource(values, ISSUER)
    assert raised.value.code == "invalid_target"


def test_the_charges_api_is_built_in() -> None:
    charges = builtin_resource(ISSUER)
    assert (charges.resource, charges.builtin, charges.tenants) == (f"{ISSUER}/charges", True, ())
    assert resolve(None, ISSUER, "any") == charges
    assert resolve(f"{ISSUER}/charges/", ISSUER, "any") == charges


def test_resolve_registered_unknown_and_not_allowed(aws: None) -> None:
    ResourceStore().create(MCP)
    assert resolve(MCP.resource, ISSUER, "demo") == MCP
    for named, tenant, code in ((MCP.resource, "acme", "resource_not_allowed"),
                                ("https://nope.example/", "demo", "unknown_resource")):
        with pytest.raises(ApiError) as raised:
            resolve(named, ISSUER, tenant)
        assert (raised.value.code, raised.value.oauth_error, raised.value.status) == (code, "invalid_target", 400)


def test_granted_resource_may_be_named_again_but_not_changed(aws: None) -> None:
    ResourceStore().create(MCP)
    assert granted_resource(MCP.resource, None, ISSUER, "demo") == MCP
    assert granted_resource(MCP.resource, MCP.resource, ISSUER, "demo") == MCP
    assert granted_resource(None, f"{ISSUER}/charges", ISSUER, "demo").builtin
    for recorded, named in ((MCP.resource, f"{ISSUER}/charges"), (None, MCP.resource)):
        with pytest.raises(ApiError) as raised:
            granted_resource(recorded, named, ISSUER, "demo")
        assert raised.value.code == "invalid_target"


def test_client_scopes_limit_the_charges_api_and_under_consent_the_resources_they_name() -> None:
    charges = builtin_resource(ISSUER)
    reader = client("charges:read")
    for consent in (True, False):
        assert client_may_request(reader, charges, "charges:read", consent=consent)
        assert not client_may_request(reader, charges, "charges:write", consent=consent)
    # Under a person's consent, registered with none of MCP's scopes: the resource's list decides.
    assert client_may_request(reader, MCP, "mcp:write", consent=True)
    # Registered with some of them: limited to those.
    assert not client_may_request(client("mcp:read"), MCP, "mcp:write", consent=True)
    assert client_may_request(client("mcp:read"), MCP, "mcp:read", consent=True)


def test_without_consent_a_registered_resource_gives_only_what_an_administrator_granted() -> None:
    """RFC 6749 4.4, RFC 9700 2.3: client_credentials reaches a new resource only through a grant."""
    for scopes in ((), ("mcp:read",), ("mcp:read", "mcp:write")):
        assert not any(client_may_request(client(*scopes), MCP, s, consent=False) for s in MCP.scopes)
    granted = client("charges:read")._replace(resource_scopes=((MCP.resource, ("mcp:read",)),))
    assert granted.granted_scopes(MCP.resource) == ("mcp:read",) and granted.granted_scopes("https://x/") == ()
    for consent in (True, False):
        assert client_may_request(granted, MCP, "mcp:read", consent=consent)
        # The grant limits a person's consent too.
        assert not client_may_request(granted, MCP, "mcp:write", consent=consent)
    other = Resource("https://other.example/api", ("mcp:read",))
    assert not client_may_request(granted, other, "mcp:read", consent=False)


@pytest.mark.parametrize("source", ["registration", "metadata_document"])
def test_a_self_registered_clients_stated_scope_does_not_limit_a_registered_resource(source: str) -> None:
    """MCP clients register with the first challenge's scope, then step up without registering again."""
    agent = client("mcp:read")._replace(source=source)
    assert client_may_request(agent, MCP, "mcp:write", consent=True)
    assert client_may_request(agent, MCP, "mcp:read", consent=True)
    # The charges API keeps its rule: only the scopes it registered with.
    charges = builtin_resource(ISSUER)
    assert not client_may_request(agent, charges, "charges:read", consent=True)
    assert client_may_request(client("charges:read")._replace(source=source), charges, "charges:read", consent=True)


def test_a_tenant_not_known_yet_is_checked_later(aws: None) -> None:
    """A self-registered client before sign-in: the resource's tenants are checked once the user's is known."""
    ResourceStore().create(MCP)
    assert resolve(MCP.resource, ISSUER, None) == MCP
    with pytest.raises(ApiError) as raised:
        resolve(MCP.resource, ISSUER, "")
    assert raised.value.code == "resource_not_allowed"
