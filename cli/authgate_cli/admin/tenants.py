"""`authgate tenants create | update | list | show`: a stage's tenants without hand-written DynamoDB JSON.

A tenant has an id and the settings of authgate.administration.tenant_settings (its display name, the
currencies its charges may use, the scopes its users may never grant, the clients its admin has
approved, which self-registered clients its users may authorize, ...): the commands' flags and views
come from that one table (authgate_cli.admin.tenant_settings), and `create` and `update` are
authgate.administration.tenants, which the console calls too. Acts on the running `authgate serve` stack by default, or on a deployed
stack (`--stack-name`), through authgate_cli.admin.target.

Bad input is refused before anything is written: one line on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from authgate.administration.input import InvalidInput
from authgate.administration.tenant_settings import given, new_tenant, tenant_id
from authgate_cli.admin import target, text, unknown
from authgate_cli.admin.tenant_settings import HEADINGS, add_flags, columns, lines, view


def _fail(message: str) -> int:
    sys.stderr.write(f"authgate tenants: {message}\n")
    return 2


def _write(tenant: Any, args: argparse.Namespace, out: IO[str], done: str) -> None:
    if args.json:
        out.write(json.dumps(view(tenant), indent=2) + "\n")
    else:
        from authgate.administration.tenants import said

        out.write(said(tenant, done) + "\n")


def create_tenant(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.administration.tenants import create
    from authgate.tenants.errors import TenantExists

    try:
        tenant = create(args.tenant_id, vars(args))
    except InvalidInput as exc:
        return _fail(str(exc))
    except TenantExists as exc:
        sys.stderr.write(f"authgate tenants: {exc}\n")
        return 1
    _write(tenant, args, out, "created")
    if not args.json:
        out.write(f"next: authgate clients create --tenant {tenant.tenant_id} ...\n")
    return 0


def update_tenant(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    """Change the settings given, keep the others; seen by warm functions within a minute (their tenant cache)."""
    from authgate.administration.tenants import update
    from authgate.tenants.errors import TenantNotFound

    try:
        updated = update(args.tenant_id, vars(args))
    except InvalidInput as exc:
        return _fail(str(exc))
    except TenantNotFound:
        return _unknown(args.tenant_id)
    _write(updated.after, args, out, "updated")
    return 0


def _unknown(tenant: str) -> int:
    return _fail(unknown.tenant(tenant))


def list_tenants(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.tenants import TenantStore

    tenants = sorted(TenantStore().list(), key=lambda t: t.tenant_id)
    if args.json:
        out.write(json.dumps([view(t) for t in tenants], indent=2) + "\n")
    else:
        text.table(HEADINGS, (columns(t) for t in tenants), out)
    return 0


def show_tenant(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.tenants import TenantStore

    try:
        wanted = tenant_id("tenant id", args.tenant_id)
    except InvalidInput as exc:
        return _fail(str(exc))
    tenant = TenantStore().get(wanted)
    if tenant is None:
        return _unknown(wanted)
    out.write(json.dumps(view(tenant), indent=2) + "\n" if args.json else "\n".join(lines(tenant)) + "\n")
    return 0


ACTIONS = {"create": create_tenant, "update": update_tenant, "list": list_tenants, "show": show_tenant}


def _validate(args: argparse.Namespace) -> None:
    """Refuse bad input before a stack is looked for or anything is written."""
    if args.tenants_command == "create":
        new_tenant(args.tenant_id, vars(args))
    elif args.tenants_command == "update":
        tenant_id("tenant id", args.tenant_id)
        if not given(vars(args)):
            raise unknown.nothing_to_change("tenants", "at least one setting to change")
    elif args.tenants_command == "show":
        tenant_id("tenant id", args.tenant_id)


def _run(args: argparse.Namespace) -> int:
    try:
        _validate(args)
    except InvalidInput as exc:
        return _fail(str(exc))
    return target.run(args, "tenants", lambda: ACTIONS[args.tenants_command](args, sys.stdout))


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("tenants", help="manage tenants (create, update, list, show)",
                                   description="Create a stage's tenants, change their settings and look at them.")
    sub = parser.add_subparsers(dest="tenants_command", required=True, metavar="ACTION")

    create = sub.add_parser("create", help="add a tenant (never overwrites one)")
    create.add_argument("tenant_id", metavar="TENANT_ID")
    add_flags(create, update=False)
    update = sub.add_parser("update", help="change some of a tenant's settings, keep the others",
                            description="Change the settings given and keep the others. A list flag replaces the "
                                        "whole list; --no-FLAG empties it. Warm functions see the change within a "
                                        "minute.")
    update.add_argument("tenant_id", metavar="TENANT_ID")
    add_flags(update, update=True)

    listing = sub.add_parser("list", help="every tenant")
    show = sub.add_parser("show", help="one tenant, every setting")
    show.add_argument("tenant_id", metavar="TENANT_ID")
    for action in (create, update, listing, show):
        action.add_argument("--json", action="store_true", help="machine-readable output")
        target.add_arguments(action)
        action.set_defaults(func=_run)
