"""The actions of `authgate clients` on the stack acted on: create, update, rotate-secret, list, show, delete."""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from authgate_cli.admin import arguments, operator_audit, text, unknown
from authgate_cli.admin.client_registration import (
    check_create,
    loopback_allowed,
    offered_id_token_algs,
    registration,
    resource_grants,
)


def _fail(message: str, status: int = 2) -> int:
    sys.stderr.write(f"authgate clients: {message}\n")
    return status


def _unknown(client_id: str) -> int:
    return _fail(unknown.client(client_id))


def create_client(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.clients.errors import ClientExists
    from authgate.stores.clients import ClientStore

    try:
        check_create(args)
        unknown.existing_tenant(args.tenant)
        arguments.served_grants(args.grant)
        arguments.known_scopes(args.scope)  # the charges API's, or a registered resource's
        grants = resource_grants(args)
        arguments.granted_resources(grants)
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
    try:
        client, secret = ClientStore().create(
            client_id=args.client_id, tenant_id=args.tenant, name=args.name or args.client_id or "",
            client_type=args.type, redirect_uris=args.redirect_uri, grant_types=args.grant, scopes=args.scope,
            error_format=args.error_format, requires_admin_approval=args.requires_admin_approval,
            resource_scopes=arguments.with_grants((), grants),
            **registration(args, args.type, args.redirect_uri, args.grant, allow_loopback=loopback_allowed(),
                           id_token_algs=offered_id_token_algs()))
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
    except ClientExists:
        return _fail(f"client {args.client_id!r} already exists", 1)
    operator_audit.made(client.client_id)  # a generated id: the audit trail names it (docs/audit.md)
    if args.json:
        out.write(json.dumps({**client.public_view(), "client_secret": secret}, indent=2) + "\n")
    else:
        out.write(f"client_id:     {client.client_id}\n")
        if secret:
            out.write(f"client_secret: {secret}\n")
            out.write("The secret is shown once and stored only as a hash: keep it now.\n")
    return 0


def update_client(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    """Change a client's name, keys, authentication method, PAR requirement, profile (RFC 7591 2) or the scopes
    of registered resources it is granted (RFC 6749 4.4)."""

    from authgate.clients.errors import ClientNotFound
    from authgate.stores.clients import ClientStore

    store = ClientStore()
    client = store.get(args.client_id, any_environment=True)
    if client is None:
        return _unknown(args.client_id)
    try:
        grants = getattr(args, "grant", None) or []
        if grants:
            arguments.client_grants(grants, client.client_type, client.redirect_uris)
            arguments.served_grants(grants)
        changes = registration(args, client.client_type, client.redirect_uris, grants or client.grant_types,
                               client.jwks, client.token_endpoint_auth_method, loopback_allowed(),
                               offered_id_token_algs())
        if grants:
            changes["grant_types"] = tuple(dict.fromkeys(grants))
        if getattr(args, "name", None) is not None:
            changes["name"] = arguments.text(args.name, "--name")
        grants = resource_grants(args)
        arguments.granted_resources([g for g in grants if g[1]])  # withdrawing a grant needs no resource
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
    if changes["token_endpoint_auth_method"] == "private_key_jwt":
        changes["secret_hash"] = None  # its keys replace the secret, which stops working now
    updated = client._replace(**changes, resource_scopes=arguments.with_grants(client.resource_scopes, grants))
    try:
        store.replace(updated)
    except ClientNotFound:
        return _unknown(args.client_id)
    if args.json:
        out.write(json.dumps(updated.public_view(), indent=2) + "\n")
    else:
        out.write(f"client_id: {updated.client_id} updated (auth {updated.auth_methods[0]}, "
                  f"profile {updated.profile or 'none'}, {text.count(len(updated.jwks), 'key')}, "
                  f"PAR {'required' if updated.require_pushed_authorization_requests else 'optional'}, "
                  f"resource grants {_granted(updated)})\n")
    return 0


def _granted(client: Any) -> str:
    return "; ".join(f"{uri}={' '.join(scopes)}" for uri, scopes in client.resource_scopes) or "none"


def rotate_secret(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.clients.errors import ClientNotFound
    from authgate.stores.clients import ClientStore

    store = ClientStore()
    client = store.get(args.client_id, any_environment=True)
    if client is None:
        return _unknown(args.client_id)
    if client.client_type != "confidential":
        return _fail(f"client {args.client_id!r} is public: it has no secret to rotate (RFC 6749 2.1)")
    try:
        secret = store.rotate_secret(args.client_id)
    except ClientNotFound:
        return _unknown(args.client_id)
    if args.json:
        out.write(json.dumps({"client_id": args.client_id, "client_secret": secret}, indent=2) + "\n")
    else:
        out.write(f"client_id:     {args.client_id}\nclient_secret: {secret}\n")
        out.write("The old secret stopped working now. The new one is shown once: keep it now.\n")
    return 0


def list_clients(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.clients import ClientStore

    clients = sorted(ClientStore().list(), key=lambda c: c.client_id)
    if args.json:
        out.write(json.dumps([c.public_view() for c in clients], indent=2) + "\n")
        return 0
    text.table(("CLIENT_ID", "TENANT", "ENV", "TYPE", "GRANTS", "SCOPES", "ERRORS"),
               ((c.client_id, c.tenant_id, c.environment, c.client_type, ",".join(c.grant_types), " ".join(c.scopes),
                 c.error_format) for c in clients), out)
    return 0


def show_client(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    """One client, every field of its public view (never its secret's hash); its keys by kid in text."""
    from authgate.stores.clients import ClientStore

    client = ClientStore().get(args.client_id, any_environment=True)
    if client is None:
        return _unknown(args.client_id)
    view = client.public_view()
    if args.json:
        out.write(json.dumps(view, indent=2) + "\n")
        return 0
    keys = view.get("jwks", {}).get("keys", [])
    text.record({**view, "jwks": f"{text.count(len(keys), 'key')} ({' '.join(k.get('kid', '-') for k in keys)})"
                 if keys else "", "resource_scopes": _granted(client) if client.resource_scopes else ""}, out)
    return 0


_DELETED = {"metadata_document": "a cached Client ID Metadata Document: the next request naming it fetches it "
                                  "again, unless a client is created under this id",
            "registration": "a dynamically registered client: its registration access token stops working"}


def delete_client(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    """Remove a client: its refresh tokens stop working at once, its access tokens within the minute
    the bearer guard caches clients for (a cached metadata document is fetched again by the next
    request naming it)."""
    from authgate.clients.errors import ClientNotFound
    from authgate.stores.clients import ClientStore
    from authgate.stores.resources import ResourceStore

    store = ClientStore()
    client = store.get(args.client_id, any_environment=True)
    if client is None:
        return _unknown(args.client_id)
    resource = ResourceStore().introspected_by(client.client_id)
    if resource is not None:
        return _fail(f"{args.client_id!r} is the introspection client of {resource}; it goes with the resource "
                     f"(authgate resources delete {resource})")
    try:
        store.delete(client)
    except ClientNotFound:
        return _fail(f"client {args.client_id!r} changed meanwhile; run the command again", 1)
    if args.json:
        out.write(json.dumps({"client_id": client.client_id, "deleted": True,
                              "source": client.source or "administrator"}, indent=2) + "\n")
    else:
        what = _DELETED.get(client.source)
        out.write(f"client_id: {client.client_id} deleted" + (f" ({what})" if what else "") + "\n")
    return 0
