"""`authgate resources create | list | show | update | delete`: the APIs tokens may be issued for (RFC 8707).

A resource is an absolute https URI without fragment (on the local stack, loopback http too:
http://127.0.0.1:PORT/..., http://localhost:...), its scopes (RFC 6749 3.3) and the tenants that
may use it (none: every tenant). `create` also registers the resource server's introspection
client (RFC 7662 2.1) and prints its secret once. The charges API (`<issuer>/charges`) is built
in and never registered. Acts on the running `authgate serve` stack by default, or on a
deployed stack (`--stack-name`), through authgate_cli.admin.target.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from typing import IO, Any
from urllib.parse import urlsplit

from authgate_cli.admin import arguments, target

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
MAX_URI = 2000


def resource_uri(value: str, *, local: bool = True) -> str:
    """An absolute https URI without fragment or userinfo; loopback http only on the local stack."""
    from authgate.oauth.redirect_uris import well_formed_uri

    if len(value) > MAX_URI or not well_formed_uri(value):
        raise arguments.InvalidInput(f"resource {value[:200]!r} is not an absolute URI in printable ASCII without "
                                      "a fragment (RFC 8707 2)")
    parts = urlsplit(value)
    if not parts.hostname or parts.username is not None or parts.password is not None:
        raise arguments.InvalidInput(f"resource {value!r} needs a host and no user information")
    if parts.scheme == "https":
        return value
    if parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS:
        if not local:
            raise arguments.InvalidInput(f"resource {value!r}: http is accepted on the local stack only; "
                                          "a deployed stage registers https resources")
        return value
    raise arguments.InvalidInput(f"resource {value!r} must be https (http only on 127.0.0.1 or localhost, "
                                  "for the local stack)")


def scopes(raw: str) -> tuple[str, ...]:
    from authgate.oauth.scopes import ScopeSyntaxError, parse_scope

    try:
        parsed = parse_scope(raw.strip())
    except ScopeSyntaxError:
        raise arguments.InvalidInput(f"--scopes {raw!r} must be scope tokens separated by single spaces "
                                      "(RFC 6749 3.3)") from None
    if not parsed:
        raise arguments.InvalidInput("--scopes must name at least one scope")
    return parsed


def tenants(raw: str) -> tuple[str, ...]:
    """Comma-separated tenant ids; empty: every tenant."""
    return tuple(dict.fromkeys(arguments.identifier(t.strip(), "tenant") for t in raw.split(",") if t.strip()))


DESCRIPTION_MAX = 500


def scope_descriptions(values: list[str], known: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """--scope-description SCOPE=TEXT (repeat): what each scope allows, as the consent page shows it; SCOPE= drops one."""
    described: dict[str, str] = {}
    for value in values:
        scope, equals, text = value.partition("=")
        if not equals or scope not in known:
            raise arguments.InvalidInput(f"--scope-description {value[:80]!r} must be SCOPE=TEXT for one of the "
                                          f"resource's scopes ({' '.join(known)})")
        described[scope] = arguments.text(text, f"--scope-description {scope}") if text else ""
    return tuple(sorted(described.items()))


def described(resource: Any, args: argparse.Namespace) -> Any:
    """`resource` with the --name, --description and --scope-description given ("" clears a name or description);
    descriptions of scopes it no longer has are dropped."""
    changes: dict[str, Any] = {}
    if getattr(args, "name", None) is not None:
        changes["name"] = arguments.text(args.name, "--name") if args.name else ""
    if getattr(args, "description", None) is not None:
        changes["description"] = (arguments.text(args.description, "--description", limit=DESCRIPTION_MAX)
                                  if args.description else "")
    merged = dict(resource.scope_descriptions)
    merged.update(scope_descriptions(getattr(args, "scope_description", None) or [], resource.scopes))
    changes["scope_descriptions"] = tuple((k, v) for k, v in sorted(merged.items()) if v and k in resource.scopes)
    return resource._replace(**changes)


def delegation_targets(values: list[str] | None, *, local: bool = True) -> tuple[str, ...] | None:
    """--may-delegate-to URI (repeat; one "" clears): the resources a token for this one may be exchanged for."""
    if values is None:
        return None
    if values == [""]:
        return ()
    return tuple(dict.fromkeys(resource_uri(v, local=local) for v in values))


def _unknown_target(targets: tuple[str, ...], builtin: Any) -> str | None:
    """The first --may-delegate-to target that is neither registered nor the built-in charges API."""
    from authgate.stores.resources import ResourceStore

    store = ResourceStore()
    return next((t for t in targets if not (builtin is not None and t == builtin.resource) and store.get(t) is None),
                None)


def detail_type(args: argparse.Namespace) -> tuple[str, str] | None:
    """--authorization-details-type NAME --schema FILE: the type's name and its schema as compact JSON (RFC 9396 2),
    or None; InvalidInput when either is wrong (a schema must be a valid JSON Schema, Draft 2020-12)."""
    name, path = getattr(args, "authorization_details_type", None), getattr(args, "schema", None)
    if name is None and path is None:
        return None
    if name is None or path is None:
        raise arguments.InvalidInput("--authorization-details-type and --schema go together")
    _type_name(name)
    from authgate import strict_json
    from authgate.authorization_details.errors import SchemaInvalid
    from authgate.authorization_details.registered import MAX_SCHEMA, check_schema

    try:
        with open(path, encoding="utf-8") as f:
            raw = f.read(MAX_SCHEMA * 4 + 1)
    except OSError as exc:
        raise arguments.InvalidInput(f"--schema {path!r}: {exc.strerror or exc}") from None
    try:
        schema = strict_json.loads(raw)
        check_schema(schema)
    except SchemaInvalid as exc:
        raise arguments.InvalidInput(f"--schema {path!r}: {exc}") from None
    except ValueError as exc:
        raise arguments.InvalidInput(f"--schema {path!r} is not JSON: {exc}") from None
    return name, json.dumps(schema, separators=(",", ":"), sort_keys=True)


def _type_name(name: str) -> str:
    from authgate.authorization_details.charge import TYPE
    from authgate.authorization_details.model import TYPE_NAME

    if not TYPE_NAME.fullmatch(name):
        raise arguments.InvalidInput(f"authorization details type {name[:64]!r} must be 1-128 visible characters "
                                     "without spaces")
    if name == TYPE:
        raise arguments.InvalidInput(f"{TYPE!r} is the charges API's own type; name this resource's type otherwise")
    return name


def _detail_types(resource: Any, args: argparse.Namespace) -> tuple[tuple[str, str], ...]:
    """The resource's types after --authorization-details-type/--schema and --remove-authorization-details-type."""
    types = dict(resource.authorization_details_types)
    added = detail_type(args)
    if added is not None:
        types[added[0]] = added[1]
    removed = getattr(args, "remove_authorization_details_type", None)
    if removed is not None:
        if removed not in types:
            raise arguments.InvalidInput(f"the resource has no authorization details type {removed[:64]!r}")
        del types[removed]
    return tuple(sorted(types.items()))


def _fail(message: str, status: int = 2) -> int:
    sys.stderr.write(f"authgate resources: {message}\n")
    return status


def _missing_tenant(names: tuple[str, ...]) -> str | None:
    from authgate.stores.tenants import TenantStore

    store = TenantStore()
    return next((t for t in names if store.get(t) is None), None)


def create_resource(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate import clock
    from authgate.resources.errors import ResourceExists
    from authgate.resources.model import Resource
    from authgate.stores.clients import ClientStore
    from authgate.stores.resources import ResourceStore

    try:
        uri = resource_uri(args.resource, local=not args.stack_name)
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
    builtin = _builtin()
    if builtin is not None and uri.rstrip("/") == builtin.resource:
        return _fail(f"{builtin.resource} is the charges API, built in: it needs no registration")
    allowed = tenants(args.tenants or "")
    missing = _missing_tenant(allowed)
    if missing:
        return _fail(f"tenant {missing!r} does not exist here; create it first (authgate tenants create)")
    targets = delegation_targets(getattr(args, "may_delegate_to", None), local=not args.stack_name) or ()
    unknown = _unknown_target(targets, builtin)
    if unknown:
        return _fail(f"--may-delegate-to {unknown!r} is not a registered resource (authgate resources list)")
    store = ResourceStore()
    if store.get(uri) is not None:
        return _fail(f"resource {uri!r} is already registered", 1)
    client, secret = ClientStore().create(
        client_id=f"rs-{secrets.token_hex(8)}", tenant_id=allowed[0] if allowed else "",
        name=f"introspection for {uri}"[:200], client_type="confidential", grant_types=(), scopes=())
    resource = described(Resource(resource=uri, scopes=scopes(args.scopes), tenants=allowed,
                                  introspection_client_id=client.client_id, created_at=clock.seconds(),
                                  may_delegate_to=targets), args)
    try:
        store.create(resource)
    except ResourceExists:
        return _fail(f"resource {uri!r} is already registered", 1)
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
    rows = [("RESOURCE", "NAME", "SCOPES", "TENANTS", "INTROSPECTION CLIENT", "MAY DELEGATE TO")]
    rows += [(r.resource, r.name or "-", " ".join(r.scopes), ",".join(r.tenants) or "all",
              "(built in)" if r.builtin else r.introspection_client_id or "-", " ".join(r.may_delegate_to) or "-")
             for r in resources]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() + "\n")


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
    return _fail(f"no resource {args.resource!r} (see `authgate resources list`)", 1)


def show_resource(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    resource = _get(args.resource)
    return _unknown(args) if resource is None else _show(resource, args, out)


def update_resource(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.resources.errors import ResourceNotFound
    from authgate.stores.resources import ResourceStore

    resource = _get(args.resource)
    if resource is None:
        return _unknown(args)
    changes: dict[str, Any] = {}
    if args.scopes is not None:
        changes["scopes"] = scopes(args.scopes)
    if args.tenants is not None:
        changes["tenants"] = tenants(args.tenants)
        missing = _missing_tenant(changes["tenants"])
        if missing:
            return _fail(f"tenant {missing!r} does not exist here; create it first (authgate tenants create)")
    targets = delegation_targets(getattr(args, "may_delegate_to", None), local=not args.stack_name)
    if targets is not None:
        unknown = _unknown_target(targets, _builtin())
        if unknown:
            return _fail(f"--may-delegate-to {unknown!r} is not a registered resource (authgate resources list)")
        if resource.resource in targets:
            return _fail("a resource cannot delegate to itself")
        changes["may_delegate_to"] = targets
    try:
        updated = described(resource._replace(**changes, authorization_details_types=_detail_types(resource, args)),
                            args)
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
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
        _type_name(args.remove_authorization_details_type)
    if args.resources_command == "create":
        from authgate.resources.model import Resource

        described(Resource(args.resource, scopes(args.scopes)), args)
    if args.resources_command == "update" and all(getattr(args, name) is None for name in UPDATABLE) \
            and not args.scope_description:
        raise arguments.InvalidInput("update needs --scopes, --tenants, --name, --description, --scope-description, "
                                     "--may-delegate-to, --authorization-details-type or "
                                     "--remove-authorization-details-type")


def _run(args: argparse.Namespace) -> int:
    try:
        _validate(args)
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
    return target.run(args, "resources", lambda: ACTIONS[args.resources_command](args))


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
