"""`authgate operators grant | revoke | list | show`: who may do what in the console (docs/console.md).

Operators are the users of the stack's operators tenant (template parameter OperatorsTenant; `operators` on the
local stack), created with `authgate users create --tenant operators ...`. A role is granted to one of them with
`grant --username U --role R` (support: `--tenant T` once per tenant it helps) and taken back with `revoke` (with
`--tenant`, only those tenants of it); `list` shows every person of the tenant and their roles, `show` one. What each
role may do is authgate.operators.roles. Arguments are checked before any stack is looked up; the operators tenant,
then each tenant named, then the person, once it is known; a refusal is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from authgate_cli.admin import arguments, target, text, unknown
from authgate_cli.admin.user_input import MAX_USERNAME


def fail(message: str) -> int:
    sys.stderr.write(f"authgate operators: {message}\n")
    return 2


def view(operator: Any) -> dict[str, Any]:
    """The JSON view of an operator: the person's id and state, and their roles (role -> tenants)."""
    user = operator.user
    return {"tenant_id": user.tenant_id, "username": user.username, "user_id": user.user_id,
            "disabled": user.disabled, "roles": {role: list(tenants) for role, tenants in operator.roles}}


def _validate(args: argparse.Namespace) -> None:
    """Refuse bad input before a stack is looked for or anything is written."""
    if args.operators_command == "list":
        return
    arguments.text(args.operator, "--username", limit=MAX_USERNAME)
    for tenant in getattr(args, "tenants", None) or ():
        arguments.identifier(tenant, "--tenant")
    if args.operators_command in ("grant", "revoke"):
        from authgate.operators.errors import RoleRefused
        from authgate.people.operator_roles import check

        try:
            check(args.operators_command, args.role, tuple(args.tenants or ()))
        except RoleRefused as exc:
            raise arguments.InvalidInput(str(exc)) from None


def _run(args: argparse.Namespace) -> int:
    try:
        _validate(args)
    except arguments.InvalidInput as exc:
        return fail(str(exc))
    return target.run(args, "operators", lambda: act(args, sys.stdout))


def act(args: argparse.Namespace, out: IO[str]) -> int:
    """The action: grant and revoke by the runtime's one implementation (which checks the operators tenant, every
    tenant named, then the person); list and show once the operators tenant, then the person, is known to be there."""
    from authgate.settings import get_settings
    from authgate.stores.operators import OperatorStore

    if args.operators_command in ("grant", "revoke"):
        return _change(args, out)
    tenant = get_settings().operators_tenant
    try:
        unknown.existing_tenant(tenant)
    except arguments.InvalidInput as exc:
        return fail(str(exc))
    store = OperatorStore()
    if args.operators_command == "list":
        return _list(args, list(store.of_tenant(tenant)), out)
    operator = store.get(tenant, args.operator)
    if operator is None:
        return fail(unknown.user(tenant, args.operator))
    return _shown(args, operator, out)


def _change(args: argparse.Namespace, out: IO[str]) -> int:
    """grant or revoke (authgate.people.operator_roles, which the console calls too): the roles after the change."""
    from authgate.operators.errors import RoleNotHeld, RoleRefused
    from authgate.people.operator_roles import UnknownOperator, UnknownTenant, change
    from authgate.stores.exceptions import ConcurrentUpdate

    try:
        changed = change(args.operators_command, args.operator, args.role, tuple(args.tenants or ()))
    except UnknownTenant as exc:
        return fail(unknown.tenant(exc.tenant_id))
    except UnknownOperator as exc:
        return fail(unknown.user(exc.tenant_id, exc.username))
    except RoleNotHeld as exc:
        return fail(unknown.role(args.operator, str(exc)))
    except RoleRefused as exc:
        return fail(str(exc))
    except ConcurrentUpdate as exc:
        return fail(f"{exc}; nothing was changed: run the command again")
    if args.json:
        out.write(json.dumps(view(changed.operator), indent=2) + "\n")
    else:
        out.write(changed.said + "\n")
    return 0


def _list(args: argparse.Namespace, operators: list[Any], out: IO[str]) -> int:
    if args.json:
        out.write(json.dumps([view(o) for o in operators], indent=2) + "\n")
        return 0
    text.table(("USERNAME", "USER_ID", "ROLES", "STATE"),
               ((o.username, o.user.user_id or "-", o.described(), "disabled" if o.user.disabled else "active")
                for o in operators), out)
    return 0


def _shown(args: argparse.Namespace, operator: Any, out: IO[str]) -> int:
    if args.json:
        out.write(json.dumps(view(operator), indent=2) + "\n")
    else:
        text.record({**view(operator), "roles": operator.described()}, out)
    return 0


def register(subparsers: Any) -> None:
    from authgate.operators.roles import ROLES

    parser = subparsers.add_parser(
        "operators", help="the console's operators and their roles (grant, revoke, list, show)",
        description="Give the people of the operators tenant their roles in the console (docs/console.md).")
    sub = parser.add_subparsers(dest="operators_command", required=True, metavar="ACTION")
    grant = sub.add_parser("grant", help="give an operator a role (support: for the tenants named)")
    revoke = sub.add_parser("revoke", help="take a role back from an operator (with --tenant: only those tenants)")
    listing = sub.add_parser("list", help="every person of the operators tenant and their roles")
    show = sub.add_parser("show", help="one operator and their roles")
    for action in (grant, revoke, show):
        action.add_argument("--username", dest="operator", required=True,
                            help="the operator: a username of the operators tenant")
    for action in (grant, revoke):
        action.add_argument("--role", required=True, choices=ROLES, help="the role")
        action.add_argument("--tenant", dest="tenants", action="append", default=None, metavar="TENANT",
                            help="a tenant the role is held for (role support; repeat for several)")
    for action in (grant, revoke, listing, show):
        action.add_argument("--json", action="store_true", help="machine-readable output")
        target.add_arguments(action)
        action.set_defaults(func=_run)
