"""What an administrator does to a registered client: create, update, rotate its secret, delete. One implementation,
called by `authgate clients` and by the console, with the same checks and the same messages.

What is asked (administration.client_registration.Asked) is checked as dynamic registration checks it (RFC 7591 2),
then against the stack acted on (its tenants, the grants its token endpoint serves, its scopes and registered
resources). A refusal is administration.input.InvalidInput, whose message both callers show as it is; a client that
is not there is clients.errors.ClientNotFound, one already there ClientTaken, one changed meanwhile ClientChanged. A
new or rotated secret is returned once and stored only as its SHA-256.
"""

from __future__ import annotations

from typing import Any

from authgate.administration import input as checks
from authgate.administration.client_registration import (
    Asked,
    check_create,
    check_update,
    loopback_allowed,
    offered_id_token_algs,
    registration,
    resource_grants,
)
from authgate.administration.input import InvalidInput
from authgate.clients.errors import ClientNotFound
from authgate.clients.model import CONSOLE_CLIENT_ID, Client


class ClientTaken(ValueError):
    """A client of that id is registered already."""

    def __init__(self, client_id: str) -> None:
        super().__init__(f"client {client_id!r} already exists")


class ClientChanged(ValueError):
    """The client changed between its read and its removal."""

    def __init__(self, client_id: str) -> None:
        super().__init__(f"client {client_id!r} changed meanwhile; run the command again")


def create(asked: Asked) -> tuple[Client, str | None]:
    """Register a client (in a tenant the caller found: each says so in its own words); the client and its secret
    (None for a public or private_key_jwt client), to be shown once."""
    from authgate.clients.errors import ClientExists
    from authgate.stores.clients import ClientStore

    asked = check_create(asked)
    checks.served_grants(asked.grant)
    checks.known_scopes(asked.scope)  # the charges API's, the OpenID Provider's, or a registered resource's
    grants = resource_grants(asked)
    checks.granted_resources(grants)
    try:
        return ClientStore().create(
            client_id=asked.client_id, tenant_id=asked.tenant, name=asked.name or asked.client_id or "",
            client_type=asked.type, redirect_uris=list(asked.redirect_uri), grant_types=list(asked.grant),
            scopes=list(asked.scope), error_format=asked.error_format,
            requires_admin_approval=asked.requires_admin_approval, resource_scopes=checks.with_grants((), grants),
            **registration(asked, asked.type, asked.redirect_uri, asked.grant, allow_loopback=loopback_allowed(),
                           id_token_algs=offered_id_token_algs()))
    except ClientExists:
        raise ClientTaken(asked.client_id or "") from None


def the_stacks_own(client_id: str, doing: str) -> None:
    """InvalidInput for the console's own client, which the stack writes at each deploy (console.client): changed,
    given a secret of its own or deleted, it would lock every operator out of the console until the next deploy."""
    if client_id == CONSOLE_CLIENT_ID:
        raise InvalidInput(f"client {client_id!r} is the operators' console's own: each deploy (and `authgate "
                           f"serve`) writes it, and {doing} it would keep every operator out of the console")


def update(client_id: str, asked: Asked) -> Client:
    """Change a client's name, grants, keys, authentication method, PAR requirement, profile, logout URIs
    (RFC 7591 2) or the scopes of registered resources it is granted (RFC 6749 4.4); the client as written."""
    from authgate.stores.clients import ClientStore

    the_stacks_own(client_id, "changing")
    asked = check_update(asked)
    store = ClientStore()
    client = store.get(client_id, any_environment=True)
    if client is None:
        raise ClientNotFound(client_id)
    grants = list(asked.grant)
    if grants:
        checks.client_grants(grants, client.client_type, client.redirect_uris)
        checks.served_grants(grants)
    changed = registration(asked, client.client_type, client.redirect_uris, grants or client.grant_types,
                           client.jwks, client.token_endpoint_auth_method, loopback_allowed(),
                           offered_id_token_algs())
    if grants:
        changed["grant_types"] = tuple(dict.fromkeys(grants))
    if asked.name is not None:
        changed["name"] = checks.text(asked.name, "--name")
    granted = resource_grants(asked)
    checks.granted_resources([g for g in granted if g[1]])  # withdrawing a grant needs no resource
    if changed["token_endpoint_auth_method"] == "private_key_jwt":
        changed["secret_hash"] = None  # its keys replace the secret, which stops working now
    updated = client._replace(**changed, resource_scopes=checks.with_grants(client.resource_scopes, granted))
    store.replace(updated)
    return updated


def updated_said(client: Client) -> str:
    """What an update says of the client as written."""
    return (f"client_id: {client.client_id} updated (auth {client.auth_methods[0]}, "
            f"profile {client.profile or 'none'}, {_keys(len(client.jwks))}, "
            f"PAR {'required' if client.require_pushed_authorization_requests else 'optional'}, "
            f"resource grants {granted_text(client)})")


def granted_text(client: Client) -> str:
    """A client's resource grants as one line: "RESOURCE=scope scope; ..." or "none"."""
    return "; ".join(f"{uri}={' '.join(scopes)}" for uri, scopes in client.resource_scopes) or "none"


def shown(client: Client) -> dict[str, Any]:
    """Every field of a client's public view (never its secret's hash), as `authgate clients show` prints it: its
    keys by kid, its resource grants in one line ("" for none)."""
    view = client.public_view()
    keys = view.get("jwks", {}).get("keys", [])
    return {**view, "jwks": f"{_keys(len(keys))} ({' '.join(k.get('kid', '-') for k in keys)})" if keys else "",
            "resource_scopes": granted_text(client) if client.resource_scopes else ""}


def _keys(number: int) -> str:
    return f"{number} key{'' if number == 1 else 's'}"


SECRET_KEPT_ONCE = "The secret is shown once and stored only as a hash: keep it now."
SECRET_ROTATED = "The old secret stopped working now. The new one is shown once: keep it now."


def rotate_secret(client_id: str) -> str:
    """A new secret for a confidential client, returned once; the old one stops working at once."""
    from authgate.stores.clients import ClientStore

    the_stacks_own(client_id, "rotating the secret of")

    store = ClientStore()
    client = store.get(client_id, any_environment=True)
    if client is None:
        raise ClientNotFound(client_id)
    if client.client_type != "confidential":
        raise InvalidInput(f"client {client_id!r} is public: it has no secret to rotate (RFC 6749 2.1)")
    return store.rotate_secret(client_id)


# What deleting a client of each source means beyond the client's own tokens.
DELETED = {"metadata_document": "a cached Client ID Metadata Document: the next request naming it fetches it "
                                "again, unless a client is created under this id",
           "registration": "a dynamically registered client: its registration access token stops working"}


def delete(client_id: str) -> tuple[Client, str]:
    """Remove a client (an administrator's, a dynamically registered one, a cached metadata document): its refresh
    tokens stop working at once, its access tokens within the minute the bearer guard caches clients for. The client
    as it was and what is said of it. The introspection client of a resource goes with the resource only."""
    from authgate.stores.clients import ClientStore
    from authgate.stores.resources import ResourceStore

    the_stacks_own(client_id, "deleting")
    store = ClientStore()
    client = store.get(client_id, any_environment=True)
    if client is None:
        raise ClientNotFound(client_id)
    resource = ResourceStore().introspected_by(client.client_id)
    if resource is not None:
        raise InvalidInput(f"{client_id!r} is the introspection client of {resource}; it goes with the resource "
                           f"(authgate resources delete {resource})")
    try:
        store.delete(client)
    except ClientNotFound:
        raise ClientChanged(client_id) from None
    what = DELETED.get(client.source)
    return client, f"client_id: {client.client_id} deleted" + (f" ({what})" if what else "")
