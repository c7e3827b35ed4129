"""The actions of `authgate clients` on the stack acted on: create, update, rotate-secret, list, show, delete.

What each does, and what it refuses, is authgate.administration.clients and client_registration (the console calls
the same); this module reads the arguments into what it asks (`asked`: a --jwks file read here) and prints the answer.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from authgate.administration import client_registration
from authgate.administration import clients as administration
from authgate.administration.client_registration import Asked
from authgate_cli.admin import arguments, operator_audit, text, unknown


def _fail(message: str, status: int = 2) -> int:
    sys.stderr.write(f"authgate clients: {message}\n")
    return status


def _unknown(client_id: str) -> int:
    return _fail(unknown.client(client_id))


def asked(args: argparse.Namespace) -> Asked:
    """What the arguments ask of a registration (those a command does not take: not asked)."""
    values = {field: getattr(args, field) for field in Asked._fields if getattr(args, field, None) is not None}
    if values.get("jwks"):
        values["jwks"] = arguments.jwks_text(values["jwks"])
    return Asked(**values)


def check_create(args: argparse.Namespace) -> None:
    """Refuse bad arguments of `create` before any stack is looked up; its grants then by their stored name."""
    args.grant = list(client_registration.check_create(asked(args)).grant)


def create_client(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    try:
        check_create(args)
        unknown.existing_tenant(args.tenant)
        client, secret = administration.create(asked(args))
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
    except administration.ClientTaken as exc:
        return _fail(str(exc), 1)
    operator_audit.made(client.client_id)  # a generated id: the audit trail names it (docs/audit.md)
    if args.json:
        out.write(json.dumps({**client.public_view(), "client_secret": secret}, indent=2) + "\n")
    else:
        out.write(f"client_id:     {client.client_id}\n")
        if secret:
            out.write(f"client_secret: {secret}\n")
            out.write(administration.SECRET_KEPT_ONCE + "\n")
    return 0


def update_client(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    """Change a client's name, keys, authentication method, PAR requirement, profile (RFC 7591 2) or the scopes
    of registered resources it is granted (RFC 6749 4.4)."""
    from authgate.clients.errors import ClientNotFound

    try:
        updated = administration.update(args.client_id, asked(args))
    except ClientNotFound:
        return _unknown(args.client_id)
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
    if args.json:
        out.write(json.dumps(updated.public_view(), indent=2) + "\n")
    else:
        out.write(administration.updated_said(updated) + "\n")
    return 0


def rotate_secret(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.clients.errors import ClientNotFound

    try:
        secret = administration.rotate_secret(args.client_id)
    except ClientNotFound:
        return _unknown(args.client_id)
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
    if args.json:
        out.write(json.dumps({"client_id": args.client_id, "client_secret": secret}, indent=2) + "\n")
    else:
        out.write(f"client_id:     {args.client_id}\nclient_secret: {secret}\n")
        out.write(administration.SECRET_ROTATED + "\n")
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
    view: dict[str, Any] = client.public_view()
    if args.json:
        out.write(json.dumps(view, indent=2) + "\n")
        return 0
    text.record(administration.shown(client), out)
    return 0


def delete_client(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    """Remove a client: its refresh tokens stop working at once, its access tokens within the minute
    the bearer guard caches clients for (a cached metadata document is fetched again by the next
    request naming it)."""
    from authgate.clients.errors import ClientNotFound

    try:
        client, said = administration.delete(args.client_id)
    except ClientNotFound:
        return _unknown(args.client_id)
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
    except administration.ClientChanged as exc:
        return _fail(str(exc), 1)
    if args.json:
        out.write(json.dumps({"client_id": client.client_id, "deleted": True,
                              "source": client.source or "administrator"}, indent=2) + "\n")
    else:
        out.write(said + "\n")
    return 0
