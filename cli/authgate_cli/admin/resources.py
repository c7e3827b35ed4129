"""`authgate resources create | list | show | update | delete`: the APIs tokens may be issued for (RFC 8707).

A resource is an absolute https URI without fragment (on the local stack, loopback http too:
http://127.0.0.1:PORT/..., http://localhost:...), its scopes (RFC 6749 3.3) and the tenants that
may use it (none: every tenant). `create` also registers the resource server's introspection
client (RFC 7662 2.1) and prints its secret once. The charges API (`<issuer>/charges`) is built
in and never registered. Acts on the running `authgate serve` stack by default, or on a
deployed stack (`--stack-name`), through authgate_cli.admin.target.
What it accepts is checked in resource_input and resource_detail_types, before any stack is looked
up; the actions on the stack are in resource_actions. Both call authgate.administration.resources, the
console's resource pages too.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from authgate_cli.admin import arguments, target, unknown
from authgate_cli.admin.resource_actions import (
    create_resource,
    delete_resource,
    fail,
    list_resources,
    show_resource,
    update_resource,
)
from authgate_cli.admin.resource_detail_types import detail_type, type_name
from authgate_cli.admin.resource_input import (
    delegation_targets,
    described,
    resource_uri,
    scopes,
    tenants,
)

UPDATABLE = ("scopes", "tenants", "name", "description", "may_delegate_to", "authorization_details_type",
             "remove_authorization_details_type")
ACTIONS = {"create": create_resource, "list": list_resources, "show": show_resource,
           "update": update_resource, "delete": delete_resource}


def _validate(args: argparse.Namespace) -> None:
    """Refuse bad input before a stack is looked for or anything is written."""
    if args.resources_command == "list":
        return
    resource_uri(args.resource)
    if getattr(args, "scopes", None) is not None:
        scopes(args.scopes)
    if getattr(args, "tenants", None):
        tenants(args.tenants)
    delegation_targets(getattr(args, "may_delegate_to", None))
    detail_type(args)
    if getattr(args, "remove_authorization_details_type", None) is not None:
        type_name(args.remove_authorization_details_type)
    if args.resources_command == "create":
        from authgate.resources.model import Resource

        described(Resource(args.resource, scopes(args.scopes)), args)  # before the stack is looked up
    if args.resources_command == "update" and all(getattr(args, name) is None for name in UPDATABLE) \
            and not args.scope_description:
        raise unknown.nothing_to_change("resources", "--scopes, --tenants, --name, --description, --scope-description, "
                                        "--may-delegate-to, --authorization-details-type or "
                                        "--remove-authorization-details-type")


def _run(args: argparse.Namespace) -> int:
    try:
        _validate(args)
    except arguments.InvalidInput as exc:
        return fail(str(exc))
    return target.run(args, "resources", lambda: ACTIONS[args.resources_command](args, sys.stdout))


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "resources", help="protected resources tokens are issued for (create, list, show, update, delete)",
        description="Register the APIs (protected resources, RFC 8707) authgate issues tokens for, with their "
                    "scopes and tenants; `create` prints the resource server's introspection credentials once.")
    sub = parser.add_subparsers(dest="resources_command", required=True, metavar="ACTION")
    create = sub.add_parser("create", help="register a resource; prints its introspection secret once")
    create.add_argument("resource", metavar="RESOURCE_URI")
    create.add_argument("--scopes", required=True, help='its scopes, space-separated: "mcp:read mcp:write"')
    create.add_argument("--tenants", help="comma-separated tenants that may use it (default: every tenant)")
    listing = sub.add_parser("list", help="every registered resource")
    show = sub.add_parser("show", help="one resource")
    show.add_argument("resource", metavar="RESOURCE_URI")
    update = sub.add_parser("update", help="change a resource's scopes, tenants, name or descriptions")
    update.add_argument("resource", metavar="RESOURCE_URI")
    update.add_argument("--scopes", help="its new scopes, space-separated")
    update.add_argument("--tenants", help='comma-separated tenants that may use it ("" for every tenant)')
    update.add_argument("--authorization-details-type", metavar="NAME",
                        help="declare (or replace) one of its own authorization_details types (RFC 9396 2); "
                             "needs --schema")
    update.add_argument("--schema", metavar="FILE", help="the JSON Schema (Draft 2020-12) objects of that type must "
                                                         "match")
    update.add_argument("--remove-authorization-details-type", metavar="NAME",
                        help="withdraw one of its authorization_details types")
    for action in (create, update):
        action.add_argument("--name", help='its name on the consent page, e.g. "Files" ("" clears it; default: its URI)')
        action.add_argument("--description", help="what it holds, one sentence under its name on the consent page")
        action.add_argument("--scope-description", action="append", default=[], metavar="SCOPE=TEXT",
                            help='what a scope allows, on the consent page: mcp:read="Read your files" (repeat; '
                                 "SCOPE= drops one; a scope without one is shown by its name)")
        action.add_argument("--may-delegate-to", action="append", metavar="OTHER_RESOURCE",
                            help="a resource this one's server may exchange its tokens for (RFC 8693 token exchange; "
                                 'repeat for several; on update the list replaces the old one, "" clears it)')
    delete = sub.add_parser("delete", help="remove a resource and its introspection client")
    delete.add_argument("resource", metavar="RESOURCE_URI")
    for action in (create, listing, show, update, delete):
        action.add_argument("--json", action="store_true", help="machine-readable output")
        target.add_arguments(action)
        action.set_defaults(func=_run)
