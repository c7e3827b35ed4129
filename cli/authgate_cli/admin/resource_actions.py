"""The actions of `authgate resources` on the stack acted on: create, list, show, update, delete (RFC 8707).

Each is the operation the console takes too (authgate.administration.resources); here its answer is printed.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from authgate.administration.input import InvalidInput
from authgate.resources.errors import ResourceExists, ResourceNotFound
from authgate_cli.admin import text, unknown
from authgate_cli.admin.resource_detail_types import detail_type
from authgate_cli.admin.resource_input import wording


def fail(message: str, status: int = 2) -> int:
    sys.stderr.write(f"authgate resources: {message}\n")
    return status


def create_resource(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.administration.resources import create

    try:
        resource, secret = create(args.resource, args.scopes, args.tenants or "", wording(args),
                                  getattr(args, "may_delegate_to", None), local=not args.stack_name)
    except InvalidInput as exc:
        return fail(str(exc))
    except ResourceExists as exc:
        return fail(str(exc), 1)
    uri, client_id = resource.resource, resource.introspection_client_id
    if args.json:
        out.write(json.dumps({"resource": uri, "scopes": list(resource.scopes),
                              "introspection_client_id": client_id,
                              "introspection_client_secret": secret}, indent=2) + "\n")
    else:
        out.write(f"resource:                    {uri}\n")
        out.write(f"name:                        {resource.name or '-'}\n")
        out.write(f"scopes:                      {' '.join(resource.scopes)}\n")
        out.write(f"tenants:                     {','.join(resource.tenants) or 'all'}\n")
        out.write(f"may_delegate_to:             {' '.join(resource.may_delegate_to) or '-'}\n")
        out.write(f"introspection_client_id:     {client_id}\n")
        out.write(f"introspection_client_secret: {secret}\n")
        out.write("The secret is shown once and stored only as a hash: keep it now (POST /oauth/introspect).\n")
    return 0


def _table(resources: list[Any], out: IO[str]) -> None:
    text.table(("RESOURCE", "NAME", "SCOPES", "TENANTS", "INTROSPECTION CLIENT", "MAY DELEGATE TO"),
               ((r.resource, r.name or "-", " ".join(r.scopes), ",".join(r.tenants) or "all",
                 "(built in)" if r.builtin else r.introspection_client_id or "-", " ".join(r.may_delegate_to) or "-")
                for r in resources), out)


def list_resources(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.administration.resources import listed

    found = listed()
    if args.json:
        out.write(json.dumps([r.public_view() for r in found], indent=2) + "\n")
    else:
        _table(found, out)
    return 0


def _show(resource: Any, args: argparse.Namespace, out: IO[str]) -> int:
    if args.json:
        out.write(json.dumps(resource.public_view(), indent=2) + "\n")
    else:
        _table([resource], out)
    return 0


def _unknown(args: argparse.Namespace) -> int:
    return fail(unknown.resource(args.resource))


def show_resource(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.administration.resources import get

    resource = get(args.resource)
    return _unknown(args) if resource is None else _show(resource, args, out)


def update_resource(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.administration.resources import Change, update

    try:
        change = Change(args.scopes, args.tenants, wording(args), getattr(args, "may_delegate_to", None),
                        detail_type(args), getattr(args, "remove_authorization_details_type", None))
        updated = update(args.resource, change, local=not args.stack_name)
    except InvalidInput as exc:
        return fail(str(exc))
    except ResourceNotFound:
        return _unknown(args)
    return _show(updated, args, out)


def delete_resource(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.administration.resources import delete, deleted

    try:
        resource = delete(args.resource)
    except ResourceNotFound:
        return _unknown(args)
    if args.json:
        out.write(json.dumps({"resource": resource.resource, "deleted": True}) + "\n")
    else:
        out.write(deleted(resource) + "\n")
    return 0
