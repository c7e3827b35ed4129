"""The audit events of a client's registration (docs/audit.md): registered, changed, deleted.

The one description of a client an event carries: where it came from and what it may do, never a
secret (no secret hash, no registration access token, no keys).
"""

from __future__ import annotations

from typing import Any

from authgate import audit
from authgate.clients.model import Client


def facts(client: Client) -> dict[str, Any]:
    """What an event says of a client: its source, name, type, redirect URIs, grants, scopes, auth method."""
    return {"source": client.source or "administrator", "client_name": client.name, "client_type": client.client_type,
            "redirect_uris": list(client.redirect_uris), "grant_types": list(client.grant_types),
            "scopes": list(client.scopes), "token_endpoint_auth_method": client.token_endpoint_auth_method}


def record(action: audit.Action, client: Client, *, by_itself: bool = True) -> None:
    """Record `action` on `client`: done by the client itself (its registration, its document), else by authgate."""
    audit.record(action, client.tenant_id, actor=audit.client(client.client_id) if by_itself else audit.SYSTEM,
                 target=audit.client(client.client_id), details=facts(client))
