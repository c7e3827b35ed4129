"""`authgate idps create | list | show | update | delete`: the identity providers a tenant trusts for ID-JAGs.

An IdP is its issuer identifier (the `iss` of the Identity Assertion JWT Authorization Grants it
signs, draft-ietf-oauth-identity-assertion-authz-grant), its keys (`--jwks-uri`, fetched under the
metadata-document fetcher's rules, or `--jwks-file`, a JWK Set stored with it), how its `sub` maps
to a user of the tenant (`--user-match sub|email`) and whether unknown people become users
(`--create-users`). Acts on the running `authgate serve` stack by default, or on a deployed stack
(`--stack-name`), through authgate_cli.admin.target.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from authgate.identity_providers.model import USER_MATCHES
from authgate_cli.admin import arguments, target, text, unknown

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
MAX_ISSUER = 500


def issuer(value: str) -> str:
    """An https URL without fragment, query or user information (OpenID Connect Discovery 3; RFC 8414 2)."""
    from authgate.oauth.redirect_uris import well_formed_uri

    if len(value) > MAX_ISSUER or not well_formed_uri(value):
        raise arguments.InvalidInput(f"--issuer {value[:200]!r} is not an absolute URI in printable ASCII")
    parts = urlsplit(value)
    if parts.scheme != "https" or not parts.hostname or parts.username is not None or parts.query or parts.fragment:
        raise arguments.InvalidInput(f"--issuer {value!r} must be an https URL without query, fragment or user "
                                      "information (RFC 8414 2)")
    return value


def jwks_uri(value: str) -> str:
    """https with a path, as the metadata-document fetcher requires (it fetches this URL)."""
    from authgate.clients.errors import MetadataRefused
    from authgate.oauth.clients.metadata_document.client_id_url import parse

    try:
        parse(value)
    except MetadataRefused as refused:
        reason = refused.detail.split(": ", 1)[-1].rstrip(".")
        raise arguments.InvalidInput(f"--jwks-uri {value[:200]!r}: {reason.replace('client_id', 'URL')}") from None
    return value


def jwks_file(value: str) -> tuple[dict[str, Any], ...]:
    """A file holding the IdP's JWK Set: public signing keys only (RS256, PS256, ES256, EdDSA)."""
    from authgate.tokens.client_keys import IDP_ALGORITHMS, InvalidJwks, validate

    try:
        document = json.loads(Path(value).read_text("utf-8"))
    except OSError as exc:
        raise arguments.InvalidInput(f"--jwks-file {value!r} cannot be read ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise arguments.InvalidInput(f"--jwks-file {value!r} is not JSON: {exc.msg} at line {exc.lineno}") from None
    try:
        return validate(document, IDP_ALGORITHMS, max_keys=20)
    except InvalidJwks as exc:
        raise arguments.InvalidInput(f"--jwks-file {value!r}: {exc}") from None


def _fail(message: str, status: int = 2) -> int:
    sys.stderr.write(f"authgate idps: {message}\n")
    return status


def _keys(args: argparse.Namespace) -> dict[str, Any]:
    """The key source the arguments name: {} when neither flag is given."""
    if args.jwks_uri is not None:
        return {"jwks_uri": jwks_uri(args.jwks_uri), "jwks": ()}
    if args.jwks_file is not None:
        return {"jwks_uri": "", "jwks": jwks_file(args.jwks_file)}
    return {}


def _show(idp: Any, args: argparse.Namespace, out: IO[str]) -> int:
    if args.json:
        out.write(json.dumps(idp.public_view(), indent=2) + "\n")
    else:
        _table([idp], out)
    return 0


def _table(idps: list[Any], out: IO[str]) -> None:
    text.table(("TENANT", "ISSUER", "KEYS", "USER MATCH", "CREATE USERS"),
               ((i.tenant_id, i.issuer, i.jwks_uri or f"{text.count(len(i.jwks), 'key')} inline", i.user_match,
                 "yes" if i.create_users else "no") for i in idps), out)


def _unknown(args: argparse.Namespace) -> int:
    return _fail(unknown.identity_provider(args.tenant, args.issuer))


def create_idp(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate import clock
    from authgate.identity_providers.errors import IdentityProviderExists
    from authgate.identity_providers.model import IdentityProvider
    from authgate.stores.identity_providers import IdentityProviderStore

    idp = IdentityProvider(tenant_id=args.tenant, issuer=args.issuer, user_match=args.user_match or "sub",
                           create_users=bool(args.create_users), created_at=clock.seconds(), **_keys(args))
    try:
        IdentityProviderStore().create(idp)
    except IdentityProviderExists:
        return _fail(f"tenant {args.tenant!r} already trusts {args.issuer!r} (use `authgate idps update`)", 1)
    return _show(idp, args, out)


def list_idps(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.identity_providers import IdentityProviderStore

    found = sorted((i for i in IdentityProviderStore().list() if args.tenant in (None, i.tenant_id)),
                   key=lambda i: (i.tenant_id, i.issuer))
    if args.json:
        out.write(json.dumps([i.public_view() for i in found], indent=2) + "\n")
    else:
        _table(found, out)
    return 0


def show_idp(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.identity_providers import IdentityProviderStore

    idp = IdentityProviderStore().get(args.tenant, args.issuer)
    return _unknown(args) if idp is None else _show(idp, args, out)


def update_idp(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.identity_providers.errors import IdentityProviderNotFound
    from authgate.stores.identity_providers import IdentityProviderStore

    store = IdentityProviderStore()
    idp = store.get(args.tenant, args.issuer)
    if idp is None:
        return _unknown(args)
    changes: dict[str, Any] = _keys(args)
    if args.user_match is not None:
        changes["user_match"] = args.user_match
    if args.create_users is not None:
        changes["create_users"] = args.create_users
    updated = idp._replace(**changes)
    try:
        store.update(updated)
    except IdentityProviderNotFound:
        return _unknown(args)
    return _show(updated, args, out)


def delete_idp(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.identity_providers.errors import IdentityProviderNotFound
    from authgate.stores.identity_providers import IdentityProviderStore

    try:
        IdentityProviderStore().delete(args.tenant, args.issuer)
    except IdentityProviderNotFound:
        return _unknown(args)
    if args.json:
        out.write(json.dumps({"tenant": args.tenant, "issuer": args.issuer, "deleted": True}) + "\n")
    else:
        out.write(f"tenant {args.tenant} no longer trusts {args.issuer}; its ID-JAGs are refused from now on\n")
    return 0


ACTIONS = {"create": create_idp, "list": list_idps, "show": show_idp, "update": update_idp, "delete": delete_idp}


def _validate(args: argparse.Namespace) -> None:
    """Refuse bad input before a stack is looked for or anything is written."""
    if args.tenant is not None:
        arguments.identifier(args.tenant, "--tenant")
    if args.idps_command == "list":
        return
    issuer(args.issuer)
    if args.idps_command in ("create", "update"):
        if args.jwks_uri is not None and args.jwks_file is not None:
            raise arguments.InvalidInput("give --jwks-uri or --jwks-file, not both")
        if args.idps_command == "create" and args.jwks_uri is None and args.jwks_file is None:
            raise arguments.InvalidInput("create needs --jwks-uri URL or --jwks-file FILE (the IdP's signing keys)")
        _keys(args)
        if args.idps_command == "update" and not _keys(args) and args.user_match is None \
                and args.create_users is None:
            raise unknown.nothing_to_change("idps", "--jwks-uri, --jwks-file, --user-match or "
                                                    "--create-users/--no-create-users")


def _run(args: argparse.Namespace) -> int:
    try:
        _validate(args)
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
    return target.run(args, "idps", lambda: _act(args, sys.stdout))


def _act(args: argparse.Namespace, out: IO[str]) -> int:
    """The action, on the stack acted on, once the tenant it names (if any) is known to be there."""
    try:
        if args.tenant is not None:
            unknown.existing_tenant(args.tenant)
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
    return ACTIONS[args.idps_command](args, out)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "idps", help="identity providers a tenant trusts for ID-JAGs (create, list, show, update, delete)",
        description="The identity providers (Okta, Entra, Google, your own) whose Identity Assertion JWT "
                    "Authorization Grants (ID-JAG) a tenant accepts at the token endpoint.")
    sub = parser.add_subparsers(dest="idps_command", required=True, metavar="ACTION")
    create = sub.add_parser("create", help="trust an identity provider")
    listing = sub.add_parser("list", help="the trusted identity providers")
    listing.add_argument("--tenant", help="only this tenant's")
    show = sub.add_parser("show", help="one trusted identity provider")
    update = sub.add_parser("update", help="change its keys, user matching or user creation")
    delete = sub.add_parser("delete", help="stop trusting an identity provider")
    for action in (create, show, update, delete):
        action.add_argument("--tenant", required=True, help="the tenant that trusts it")
        action.add_argument("--issuer", required=True, metavar="URL", help="its issuer identifier (the ID-JAG's iss)")
    for action in (create, update):
        action.add_argument("--jwks-uri", metavar="URL", help="where it publishes its signing keys (https)")
        action.add_argument("--jwks-file", metavar="FILE", help="a file holding its JWK Set (public keys)")
        action.add_argument("--user-match", choices=USER_MATCHES,
                            help="map its sub to the user with that username (sub, the default) or its email claim "
                                 "to the user with that email (email)")
    create.add_argument("--create-users", action="store_true", default=None,
                        help="an ID-JAG for a person the tenant does not know creates the user")
    update.add_argument("--create-users", dest="create_users", action="store_true", default=None,
                        help="create unknown people as users")
    update.add_argument("--no-create-users", dest="create_users", action="store_false",
                        help="refuse ID-JAGs for unknown people")
    for action in (create, listing, show, update, delete):
        action.add_argument("--json", action="store_true", help="machine-readable output")
        target.add_arguments(action)
        action.set_defaults(func=_run)
