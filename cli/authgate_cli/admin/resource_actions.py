"""The actions of `authgate resources` on the stack acted on: create, list, show, update, delete (RFC 8707)."""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from typing import IO, Any

from authgate_cli.admin import arguments, text, unknown
from authgate_cli.admin.resource_detail_types import detail_types
from authgate_cli.admin.resource_input import (
    delegation_targets,
    described,
    resource_uri,
    scopes,
    tenants,
)


def _unknown_target(targets: tuple[str, ...], builtin: Any) -> str | None:
    """The first --may-delegate-to target that is neither registered nor the built-in charges API."""
    from authgate.stores.resources import ResourceStore

    store = ResourceStore()
    return next((t for t in targets if not (builtin is not None and t == builtin.resource) and store.get(t) is None),
                None)


def fail(message: str, status: int = 2) -> int:
    sys.stderr.write(f"authgate resources: {message}\n")
    return status


def create_resource(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate import clock
    from authgate.resources.errors import ResourceExists
    from authgate.resources.model import Resource
    from authgate.stores.clients import ClientStore
    from authgate.stores.resources import ResourceStore

    try:
        uri = resource_uri(args.resource, local=not args.stack_name)
    except arguments.InvalidInput as exc:
        return fail(str(exc))
    builtin = _builtin()
    if builtin is not None and uri.rstrip("/") == builtin.resource:
        return fail(f"{builtin.resource} is the charges API, built in: it needs no registration")
    allowed = tenants(args.tenants or "")
    try:
        unknown.existing_tenants(allowed)
    except arguments.InvalidInput as exc:
        return fail(str(exc))
    targets = delegation_targets(getattr(args, "may_delegate_to", None), local=not args.stack_name) or ()
    stranger = _unknown_target(targets, builtin)
    if stranger:
        return fail(f"--may-delegate-to {stranger!r} is not a registered resource (see `authgate resources list`)")
    store = ResourceStore()
    if store.get(uri) is not None:
        return fail(f"resource {uri!r} is already registered", 1)
    client, secret = ClientStore().create(
        client_id=f"rs-{secrets.token_hex(8)}", tenant_id=allowed[0] if allowed else "",
        name=f"introspection for {uri}"[:200], client_type="confidential", grant_types=(), scopes=())
    resource = described(Resource(resource=uri, scopes=scopes(args.scopes), tenants=allowed,
                                  introspection_client_id=client.client_id, created_at=clock.seconds(),
                                  may_delegate_to=targets), args)
    try:
        store.create(resource)
    except ResourceExists:
        return fail(f"resource {uri!r} is already registered", 1)
    if args.json:
        out.write(json.dumps({"resource": uri, "scopes": list(resource.scopes),
                              "introspection_client_id": client.client_id,
                              "introspection_client_secret": secret}, indent=2) + "\n")
    else:
        out.write(f"resource:                    {uri}\n")
        out.write(f"name:                        {resource.name or '-'}\n")
        out.write(f"scopes:                      {' '.join(resource.scopes)}\n")
        out.write(f"tenants:                     {','.join(allowed) or 'all'}\n")
        out.write(f"may_delegate_to:             {' '.join(targets) or '-'}\n")
        out.write(f"introspection_client_id:     {client.client_id}\n")
        out.write(f"introspection_client_secret: {secret}\n")
        out.write("The secret is shown once and stored only as a hash: keep it now (POST /oauth/introspect).\n")
    return 0


def _table(resources: list[Any], out: IO[str]) -> None:
    text.table(("RESOURCE", "NAME", "SCOPES", "TENANTS", "INTROSPECTION CLIENT", "MAY DELEGATE TO"),
               ((r.resource, r.name or "-", " ".join(r.scopes), ",".join(r.tenants) or "all",
                 "(built in)" if r.builtin else r.introspection_client_id or "-", " ".join(r.may_delegate_to) or "-")
                for r in resources), out)


def _builtin() -> Any:
    """The charges API of the stack acted on (its issuer is in the stack's environment), if known."""
    from authgate.oauth.resource_indicator import builtin_resource
    from authgate.settings import get_settings

    issuer = get_settings().issuer
    return builtin_resource(issuer) if issuer else None


def list_resources(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.resources import ResourceStore

    builtin = _builtin()
    found = ([builtin] if builtin is not None else []) + sorted(ResourceStore().list(), key=lambda r: r.resource)
    if args.json:
        out.write(json.dumps([r.public_view() for r in found], indent=2) + "\n")
    else:
        _table(found, out)
    return 0


def _get(uri: str) -> Any:
    from authgate.stores.resources import ResourceStore

    return ResourceStore().get(uri)


def _show(resource: Any, args: argparse.Namespace, out: IO[str]) -> int:
    if args.json:
        out.write(json.dumps(resource.public_view(), indent=2) + "\n")
    else:
        _table([resource], out)
    return 0


def _unknown(args: argparse.Namespace) -> int:
    return fail(unknown.resource(args.resource))


def show_resource(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    resource = _get(args.resource)
    return _unknown(args) if resource is None else _show(resource, args, out)


def update_resource(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.resources.errors import ResourceNotFound
    from authgate.stores.resources import ResourceStore

    changes: dict[str, Any] = {}
    if args.tenants is not None:
        changes["tenants"] = tenants(args.tenants)
        try:
            unknown.existing_tenants(changes["tenants"])
        except arguments.InvalidInput as exc:
            return fail(str(exc))
    resource = _get(args.resource)
    if resource is None:
        return _unknown(args)
    if args.scopes is not None:
        changes["scopes"] = scopes(args.scopes)
    targets = delegation_targets(getattr(args, "may_delegate_to", None), local=not args.stack_name)
    if targets is not None:
        stranger = _unknown_target(targets, _builtin())
        if stranger:
            return fail(f"--may-delegate-to {stranger!r} is not a registered resource (see `authgate resources "
                        "list`)")
        if resource.resource in targets:
            return fail("a resource cannot delegate to itself")
        changes["may_delegate_to"] = targets
    try:
        updated = described(resource._replace(**changes, authorization_details_types=detail_types(resource, args)),
                            args)
    except arguments.InvalidInput as exc:
        return fail(str(exc))
    try:
        ResourceStore().update(updated)
    except ResourceNotFound:
        return _unknown(args)
    return _show(updated, args, out)


def delete_resource(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.resources.errors import ResourceNotFound
    from authgate.stores.resources import ResourceStore

    resource = _get(args.resource)
    if resource is None:
        return _unknown(args)
    try:
        ResourceStore().delete(resource)
    except ResourceNotFound:
        return _unknown(args)
    if args.json:
        out.write(json.dumps({"resource": resource.resource, "deleted": True}) + "\n")
    else:
        out.write(f"resource {resource.resource} deleted, and its introspection client "
                  f"{resource.introspection_client_id or '-'}; tokens already issued for it expire on their own\n")
    return 0
