"""Registered protected resources (RFC 8707, docs/resources.md): what the admin commands write, and
introspection with a resource server's credentials."""

from __future__ import annotations

import hashlib
from typing import Any

from tests.functional.token_support import TokenClient, basic, grant

MCP = "https://mcp.example.com/mcp"


def register(uri: str = MCP, scopes: tuple[str, ...] = ("mcp:read", "mcp:write"),
             tenants: tuple[str, ...] = (), granted_to: tuple[str, ...] = ("demo-service",)) -> tuple[str, str]:
    """What `authgate resources create` does: the resource and its introspection client; returns its credentials.
    Then what `authgate clients update CLIENT --resource-scopes "URI=SCOPES"` does for each of `granted_to`."""
    from authgate.resources.model import Resource
    from authgate.stores.clients import ClientStore
    from authgate.stores.resources import ResourceStore

    client_id = "rs-" + hashlib.sha256(uri.encode()).hexdigest()[:16]
    client, secret = ClientStore().create(client_id=client_id, tenant_id="", grant_types=())
    assert secret is not None
    ResourceStore().create(Resource(uri, scopes, tenants, introspection_client_id=client.client_id))
    for granted in granted_to:
        grant(granted, uri, scopes)
    return client.client_id, secret


def introspect(tokens: TokenClient, creds: tuple[str, str], token: str) -> dict[str, Any]:
    """POST /oauth/introspect (RFC 7662 2.1) with a resource server's credentials."""
    return tokens.post([("token", token)], path="/oauth/introspect", auth=basic(*creds))
