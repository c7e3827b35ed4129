"""`authgate tenants create | list | show`: a stage's tenants without hand-written DynamoDB JSON.

A tenant has an id, a display name, the currencies its charges may use (ISO 4217, lower case),
the scopes its users may never grant, and the clients its admin has approved (for clients
registered with --requires-admin-approval). Acts on the running `authgate serve` stack by
default, or on a deployed stack (`--stack-name`), through authgate_cli.admin.target.

Bad input is refused before anything is written: one line on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from typing import IO, Any

from authgate_cli.admin import arguments, target

# Tenant and client ids end up in keys, tokens and log lines: a letter or digit, then letters,
# digits, ".", "_" or "-" ("#" separates parts of the limiter's keys, so never in an id).
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_NAME_MAX = 200


class InvalidInput(ValueError):
    """One argument is not acceptable; the message names it."""


def _id(kind: str, value: str) -> str:
    if not _ID.fullmatch(value):
        raise InvalidInput(f"invalid {kind} {value!r}: 1-64 characters, letters, digits, '.', '_' or '-', "
                           "starting with a letter or digit")
    return value


def _name(value: str) -> str:
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in value):
        raise InvalidInput(f"invalid name {value!r}: control characters are not allowed")
    if not value.strip() or len(value) > _NAME_MAX:
        raise InvalidInput(f"invalid name {value!r}: 1-{_NAME_MAX} characters")
    return value.strip()


def _currency(value: str) -> str:
    from authgate.charges.currencies import is_iso_4217

    code = value.lower()
    if not is_iso_4217(code):
        raise InvalidInput(f"unknown currency {value!r}: an ISO 4217 code such as usd or eur")
    return code


def _scope(value: str) -> str:
    """A scope token; whether it is known is asked of the stack (arguments.known_scopes)."""
    try:
        return arguments.scope_token(value, "--forbid-scope")
    except arguments.InvalidInput as exc:
        raise InvalidInput(str(exc)) from None


def _host(value: str) -> str:
    """A host ("tools.example"), a domain (".example.com") or * (docs/agents.md)."""
    import re

    if value == "*" or re.fullmatch(r"\.?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?",
                                    value):
        return value
    raise InvalidInput(f"--client-metadata-host {value!r}: give a host (tools.example), a domain (.example.com) or *")


def _cap(value: int | None) -> int:
    if value is None:
        return 100
    if not 1 <= value <= 100_000:
        raise InvalidInput(f"--registered-clients-cap must be between 1 and 100000, got {value}")
    return value


def _unique(values: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def _view(tenant: Any) -> dict[str, Any]:
    return {"tenant_id": tenant.tenant_id, "name": tenant.name, "currencies": list(tenant.currencies),
            "forbidden_scopes": sorted(tenant.forbidden_scopes),
            "approved_clients": sorted(tenant.approved_clients),
            "client_metadata_hosts": list(tenant.client_metadata_hosts),
            "registered_clients": tenant.registered_clients,
            "registered_clients_cap": tenant.registered_clients_cap}


def _fail(message: str) -> int:
    sys.stderr.write(f"authgate tenants: {message}\n")
    return 2


def tenant_from(args: argparse.Namespace) -> Any:
    """The Tenant that `create` would store, or InvalidInput naming the first bad argument."""
    from authgate.stores.tenants import Tenant

    tenant = Tenant(
        tenant_id=_id("tenant id", args.tenant_id),
        name=_name(args.name) if args.name is not None else args.tenant_id,
        currencies=_unique([_currency(c) for c in args.currency]),
        forbidden_scopes=frozenset(_scope(s) for s in args.forbid_scope),
        approved_clients=frozenset(_id("client id", c) for c in args.approve_client),
        client_metadata_hosts=_unique([_host(h) for h in getattr(args, "client_metadata_host", None) or []]),
        registered_clients=bool(getattr(args, "registered_clients", False)),
        registered_clients_cap=_cap(getattr(args, "registered_clients_cap", None)),
    )
    if not tenant.currencies:
        raise InvalidInput("give at least one --currency (the currencies this tenant's charges may use)")
    return tenant


def create_tenant(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.exceptions import TenantExists
    from authgate.stores.tenants import TenantStore

    try:
        tenant = tenant_from(args)
        arguments.known_scopes(sorted(tenant.forbidden_scopes))  # the charges API's, or a registered resource's
    except (InvalidInput, arguments.InvalidInput) as exc:
        return _fail(str(exc))
    try:
        TenantStore().create(tenant)
    except TenantExists:
        sys.stderr.write(f"authgate tenants: tenant {tenant.tenant_id!r} already exists\n")
        return 1
    if args.json:
        out.write(json.dumps(_view(tenant), indent=2) + "\n")
    else:
        out.write(f"tenant {tenant.tenant_id} created ({', '.join(tenant.currencies)})\n")
        out.write(f"next: authgate clients create --tenant {tenant.tenant_id} ...\n")
    return 0


def _table(tenants: list[Any], out: IO[str]) -> None:
    rows = [("TENANT_ID", "NAME", "CURRENCIES", "FORBIDDEN SCOPES", "APPROVED CLIENTS")]
    rows += [(t.tenant_id, t.name, ",".join(t.currencies), " ".join(sorted(t.forbidden_scopes)) or "-",
              " ".join(sorted(t.approved_clients)) or "-") for t in tenants]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() + "\n")


def list_tenants(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.tenants import TenantStore

    tenants = sorted(TenantStore().list(), key=lambda t: t.tenant_id)
    if args.json:
        out.write(json.dumps([_view(t) for t in tenants], indent=2) + "\n")
    else:
        _table(tenants, out)
    return 0


def show_tenant(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.tenants import TenantStore

    try:
        tenant_id = _id("tenant id", args.tenant_id)
    except InvalidInput as exc:
        return _fail(str(exc))
    tenant = TenantStore().get(tenant_id)
    if tenant is None:
        return _fail(f"unknown tenant {tenant_id!r} (see `authgate tenants list`)")
    if args.json:
        out.write(json.dumps(_view(tenant), indent=2) + "\n")
    else:
        _table([tenant], out)
    return 0


ACTIONS = {"create": create_tenant, "list": list_tenants, "show": show_tenant}


def _validate(args: argparse.Namespace) -> None:
    """Refuse bad input before a stack is looked for or anything is written."""
    if args.tenants_command == "create":
        tenant_from(args)
    elif args.tenants_command == "show":
        _id("tenant id", args.tenant_id)


def _run(args: argparse.Namespace) -> int:
    try:
        _validate(args)
    except InvalidInput as exc:
        return _fail(str(exc))
    return target.run(args, "tenants", lambda: ACTIONS[args.tenants_command](args))


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("tenants", help="manage tenants (create, list, show)",
                                   description="Create a stage's tenants and look at them.")
    sub = parser.add_subparsers(dest="tenants_command", required=True, metavar="ACTION")

    create = sub.add_parser("create", help="add a tenant (never overwrites one)")
    create.add_argument("tenant_id", metavar="TENANT_ID")
    create.add_argument("--name", help="display name (default: the id)")
    create.add_argument("--currency", action="append", default=[], metavar="CODE",
                        help="ISO 4217 currency its charges may use (repeat; at least one)")
    create.add_argument("--forbid-scope", action="append", default=[], metavar="SCOPE",
                        help="scope its users may never grant (repeat)")
    create.add_argument("--approve-client", action="append", default=[], metavar="CLIENT_ID",
                        help="client its admin approves (repeat)")
    create.add_argument("--client-metadata-host", action="append", default=[], metavar="HOST",
                        help="its users may authorize clients whose metadata document is on HOST, under the "
                             "domain .DOMAIN, or anywhere (*) (repeat; none by default; docs/agents.md)")
    create.add_argument("--registered-clients", action="store_true",
                        help="its users may authorize clients that registered themselves (RFC 7591; docs/agents.md)")
    create.add_argument("--registered-clients-cap", type=int, default=None, metavar="N",
                        help="how many registered clients it holds at most (default 100)")

    listing = sub.add_parser("list", help="every tenant")
    show = sub.add_parser("show", help="one tenant")
    show.add_argument("tenant_id", metavar="TENANT_ID")
    for action in (create, listing, show):
        action.add_argument("--json", action="store_true", help="machine-readable output")
        target.add_arguments(action)
        action.set_defaults(func=_run)
