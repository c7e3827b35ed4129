"""`authgate clients create | update | rotate-secret | list | delete`: OAuth client registration from the command line.

A new or rotated secret is printed ONCE (stdout) and stored only as its SHA-256; rotation
invalidates the old secret from the next request (client reads are strongly consistent).
Arguments are checked before any stack is looked up (authgate_cli.admin.arguments), the tenant
once the stack is known; a refusal is one line on stderr and exit status 2.
A client may register public keys (`--jwks FILE|JSON`) and authenticate with private_key_jwt
(RFC 7523) instead of a secret, be required to push its authorization requests (RFC 9126), and be
put on the `fapi2` profile (FAPI 2.0 Security Profile), which implies all of these and DPoP; the
runtime enforces the profile whatever was written (authgate.oauth.clients.profile).
A client whose id is an https URL may be created over the cached Client ID Metadata Document of
that URL (draft-ietf-oauth-client-id-metadata-document-02 7.2): the administrator's record wins and
is never fetched over. `delete` removes any client, a cached document included (the next request
naming it fetches it again).
Acts on the running `authgate serve` stack by default, or on a deployed stack (`--stack-name`),
through authgate_cli.admin.target.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from authgate.clients.model import AUTH_METHODS, ID_TOKEN_ALGS
from authgate_cli.admin import arguments, target


def _registration(args: argparse.Namespace, client_type: str, redirect_uris: list[str] | tuple[str, ...],
                  grants: list[str] | tuple[str, ...], current_keys: tuple[dict[str, Any], ...] = (),
                  current_method: str = "", allow_loopback: bool = True,
                  id_token_algs: tuple[str, ...] = ID_TOKEN_ALGS) -> dict[str, Any]:
    """The authentication and profile attributes the arguments ask for, checked (RFC 7591 2). `allow_loopback`:
    whether the target stack takes a loopback backchannel_logout_uri, `id_token_algs` the ID-token algorithms it
    offers (before the stack is known: syntax only, every algorithm authgate can offer)."""
    keys = arguments.jwks(args.jwks) if getattr(args, "jwks", None) else current_keys
    method = getattr(args, "auth_method", None) or current_method
    profile = getattr(args, "profile", None)
    if profile == "fapi2":
        arguments.fapi2_registration(client_type, method, keys, redirect_uris, grants)
        method = "private_key_jwt"
    if method == "private_key_jwt" and not keys:
        raise arguments.InvalidInput("private_key_jwt needs the client's public keys: give --jwks FILE|JSON")
    if method == "none" and client_type != "public" or client_type == "public" and method not in ("", "none"):
        raise arguments.InvalidInput("a public client authenticates with none, and only a public client does")
    out: dict[str, Any] = {"jwks": keys, "token_endpoint_auth_method": method}
    logout_uris = getattr(args, "post_logout_redirect_uri", None)
    if logout_uris:
        for uri in logout_uris:
            arguments.redirect_uri(uri)
        out["post_logout_redirect_uris"] = tuple(dict.fromkeys(logout_uris))
    out.update(_backchannel_logout(args, allow_loopback))
    alg = getattr(args, "id_token_signed_response_alg", None)
    if alg is not None:
        out["id_token_signed_response_alg"] = _id_token_alg(alg, id_token_algs)
    if profile is not None:
        out["profile"] = "" if profile == "none" else profile
    if profile == "fapi2":
        out["dpop_bound_access_tokens"] = True  # FAPI 2.0 5.3.2.1 items 4-5 (the runtime insists anyway)
    if getattr(args, "require_par", None) is not None or profile == "fapi2":
        out["require_pushed_authorization_requests"] = profile == "fapi2" or bool(args.require_par)
    return out


def _backchannel_logout(args: argparse.Namespace, allow_loopback: bool) -> dict[str, Any]:
    """--backchannel-logout-uri ("" removes it on update) and --backchannel-logout-session-required
    (OpenID Connect Back-Channel Logout 1.0 2.2), checked as dynamic registration checks them."""
    from authgate.clients.backchannel_logout import uri_problem

    out: dict[str, Any] = {}
    uri = getattr(args, "backchannel_logout_uri", None)
    if uri:
        problem = uri_problem(uri, allow_loopback=allow_loopback)
        if problem:
            raise arguments.InvalidInput(problem.replace("backchannel_logout_uri", "--backchannel-logout-uri", 1))
    if uri is not None:
        out["backchannel_logout_uri"] = uri
    required = getattr(args, "backchannel_logout_session_required", None)
    if required is not None:
        out["backchannel_logout_session_required"] = required
    return out


def _id_token_alg(alg: str, offered: tuple[str, ...]) -> str:
    """--id-token-signed-response-alg, one the target stack offers (OIDC Dynamic Client Registration 1.0 2)."""
    if alg == "none":
        raise arguments.InvalidInput("--id-token-signed-response-alg none is refused: ID tokens of the authorization "
                                     "code flow are signed (OpenID Connect Core 3.1.3.7)")
    if alg not in offered:
        where = "" if offered == ID_TOKEN_ALGS else " (this stack's id_token_signing_alg_values_supported)"
        raise arguments.InvalidInput(f"--id-token-signed-response-alg must be one of {', '.join(offered)}{where}")
    return alg


def _offered_id_token_algs() -> tuple[str, ...]:
    """The ID-token algorithms the stack now targeted offers (its SigningAlgorithm and RS256)."""
    from authgate.settings import get_settings

    return get_settings().id_token_algs


def _loopback_allowed() -> bool:
    """Whether the stack now targeted takes loopback URLs (the local stack's development exception)."""
    from authgate.settings import get_settings

    return get_settings().allow_loopback_client_metadata


def check_create(args: argparse.Namespace) -> None:
    """Refuse bad arguments before any stack is looked up (InvalidInput names the problem)."""
    if args.client_id is not None:
        arguments.identifier(args.client_id, "--client-id")
    arguments.identifier(args.tenant, "--tenant")
    if args.name is not None:
        arguments.text(args.name, "--name")
    for uri in args.redirect_uri:
        arguments.redirect_uri(uri)
    for scope in args.scope:
        arguments.scope_token(scope, "--scope")
    args.grant = [arguments.grant_type(g) for g in args.grant]
    arguments.client_grants(args.grant, args.type, args.redirect_uri)
    _registration(args, args.type, args.redirect_uri, args.grant)
    _grants(args)


def _grants(args: argparse.Namespace) -> list[tuple[str, tuple[str, ...]]]:
    """--resource-scopes, parsed (each "RESOURCE=SCOPES")."""
    return [arguments.resource_scopes(value) for value in getattr(args, "resource_scopes", None) or []]


def create_client(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.clients.errors import ClientExists
    from authgate.stores.clients import ClientStore

    try:
        check_create(args)
        arguments.existing_tenant(args.tenant)
        arguments.served_grants(args.grant)
        arguments.known_scopes(args.scope)  # the charges API's, or a registered resource's
        grants = _grants(args)
        arguments.granted_resources(grants)
    except arguments.InvalidInput as exc:
        sys.stderr.write(f"authgate clients: {exc}\n")
        return 2
    try:
        client, secret = ClientStore().create(
            client_id=args.client_id, tenant_id=args.tenant, name=args.name or args.client_id or "",
            client_type=args.type, redirect_uris=args.redirect_uri, grant_types=args.grant, scopes=args.scope,
            error_format=args.error_format, requires_admin_approval=args.requires_admin_approval,
            resource_scopes=arguments.with_grants((), grants),
            **_registration(args, args.type, args.redirect_uri, args.grant, allow_loopback=_loopback_allowed(),
                            id_token_algs=_offered_id_token_algs()))
    except arguments.InvalidInput as exc:
        sys.stderr.write(f"authgate clients: {exc}\n")
        return 2
    except ClientExists:
        sys.stderr.write(f"authgate clients: client {args.client_id!r} already exists\n")
        return 1
    if args.json:
        out.write(json.dumps({**client.public_view(), "client_secret": secret}, indent=2) + "\n")
    else:
        out.write(f"client_id:     {client.client_id}\n")
        if secret:
            out.write(f"client_secret: {secret}\n")
            out.write("The secret is shown once and stored only as a hash: keep it now.\n")
    return 0


def update_client(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    """Change a client's keys, authentication method, PAR requirement, profile (RFC 7591 2) or the scopes
    of registered resources it is granted (RFC 6749 4.4)."""

    from authgate.clients.errors import ClientNotFound
    from authgate.stores.clients import ClientStore

    store = ClientStore()
    client = store.get(args.client_id, any_environment=True)
    if client is None:
        sys.stderr.write(f"authgate clients: no client {args.client_id!r}\n")
        return 1
    try:
        grants = getattr(args, "grant", None) or []
        if grants:
            arguments.client_grants(grants, client.client_type, client.redirect_uris)
            arguments.served_grants(grants)
        changes = _registration(args, client.client_type, client.redirect_uris, grants or client.grant_types,
                                client.jwks, client.token_endpoint_auth_method, _loopback_allowed(),
                                _offered_id_token_algs())
        if grants:
            changes["grant_types"] = tuple(dict.fromkeys(grants))
        grants = _grants(args)
        arguments.granted_resources([g for g in grants if g[1]])  # withdrawing a grant needs no resource
    except arguments.InvalidInput as exc:
        sys.stderr.write(f"authgate clients: {exc}\n")
        return 2
    if changes["token_endpoint_auth_method"] == "private_key_jwt":
        changes["secret_hash"] = None  # its keys replace the secret, which stops working now
    updated = client._replace(**changes, resource_scopes=arguments.with_grants(client.resource_scopes, grants))
    try:
        store.replace(updated)
    except ClientNotFound:
        sys.stderr.write(f"authgate clients: no client {args.client_id!r}\n")
        return 1
    if args.json:
        out.write(json.dumps(updated.public_view(), indent=2) + "\n")
    else:
        out.write(f"client_id: {updated.client_id} updated (auth {updated.auth_methods[0]}, "
                  f"profile {updated.profile or 'none'}, keys {len(updated.jwks)}, "
                  f"PAR {'required' if updated.require_pushed_authorization_requests else 'optional'}, "
                  f"resource grants {_granted(updated)})\n")
    return 0


def _granted(client: Any) -> str:
    return "; ".join(f"{uri}={' '.join(scopes)}" for uri, scopes in client.resource_scopes) or "none"


def rotate_secret(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.clients.errors import ClientNotFound
    from authgate.stores.clients import ClientStore

    try:
        secret = ClientStore().rotate_secret(args.client_id)
    except ClientNotFound:
        sys.stderr.write(f"authgate clients: no confidential client {args.client_id!r}\n")
        return 1
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
    rows = [("CLIENT_ID", "TENANT", "ENV", "TYPE", "GRANTS", "SCOPES", "ERRORS")]
    rows += [(c.client_id, c.tenant_id, c.environment, c.client_type, ",".join(c.grant_types),
              " ".join(c.scopes), c.error_format) for c in clients]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() + "\n")
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
        sys.stderr.write(f"authgate clients: no client {args.client_id!r}\n")
        return 1
    resource = ResourceStore().introspected_by(client.client_id)
    if resource is not None:
        sys.stderr.write(f"authgate clients: {args.client_id!r} is the introspection client of {resource}; it goes "
                         f"with the resource (authgate resources delete {resource})\n")
        return 2
    try:
        store.delete(client)
    except ClientNotFound:
        sys.stderr.write(f"authgate clients: client {args.client_id!r} changed meanwhile; run the command again\n")
        return 1
    if args.json:
        out.write(json.dumps({"client_id": client.client_id, "deleted": True,
                              "source": client.source or "administrator"}, indent=2) + "\n")
    else:
        what = _DELETED.get(client.source)
        out.write(f"client_id: {client.client_id} deleted" + (f" ({what})" if what else "") + "\n")
    return 0


ACTIONS = {"create": create_client, "update": update_client, "rotate-secret": rotate_secret,
           "list": list_clients, "delete": delete_client}


def _run(args: argparse.Namespace) -> int:
    try:
        if args.clients_command == "create":
            check_create(args)
        elif args.clients_command == "update":
            arguments.identifier(args.client_id, "CLIENT_ID")
            if args.jwks:
                arguments.jwks(args.jwks)
            args.grant = [arguments.grant_type(g) for g in args.grant]
            _grants(args)
        elif args.clients_command in ("rotate-secret", "delete"):
            arguments.identifier(args.client_id, "CLIENT_ID")
    except arguments.InvalidInput as exc:
        sys.stderr.write(f"authgate clients: {exc}\n")
        return 2
    return target.run(args, "clients", lambda: ACTIONS[args.clients_command](args))


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("clients", help="manage OAuth clients (create, update, rotate-secret, list, "
                                                   "delete)",
                                   description="Register OAuth clients, change their keys and profile, rotate "
                                               "their secrets, list them, delete them.")
    sub = parser.add_subparsers(dest="clients_command", required=True, metavar="ACTION")

    create = sub.add_parser("create", help="register a client; prints its secret once")
    create.add_argument("--client-id", help="the client id (default: generated); an https URL pre-registers a "
                                            "metadata-document client, replacing its cached document")
    create.add_argument("--tenant", required=True, help="tenant the client belongs to")
    create.add_argument("--name", help="display name")
    create.add_argument("--type", choices=("confidential", "public"), default="confidential")
    create.add_argument("--redirect-uri", action="append", default=[], metavar="URI",
                        help="exact redirect URI (repeat for several)")
    create.add_argument("--scope", action="append", default=[], metavar="SCOPE", help="allowed scope (repeat)")
    create.add_argument("--error-format", choices=("problem", "legacy-a", "legacy-b"), default="problem")
    create.add_argument("--requires-admin-approval", action="store_true",
                        help="users of the tenant can authorize it only after the tenant admin approves it")

    update = sub.add_parser("update", help="change keys, authentication method, PAR requirement, profile or "
                                           "resource grants")
    update.add_argument("client_id", metavar="CLIENT_ID")
    for action in (create, update):
        action.add_argument("--grant", action="append", default=[], metavar="GRANT",
                            help=f"allowed grant type (repeat; on update the list replaces the old one): "
                                 f"{', '.join(arguments.GRANT_NAMES)} (the last four by short name or URN)")
        action.add_argument("--jwks", metavar="FILE|JSON",
                            help='the client\'s public keys, a JWK Set {"keys": [...]} (for private_key_jwt)')
        action.add_argument("--auth-method", choices=AUTH_METHODS,
                            help="token endpoint authentication (default: a secret, or none for a public client)")
        action.add_argument("--profile", choices=("fapi2", "none") if action is update else ("fapi2",),
                            help="fapi2: FAPI 2.0 Security Profile (PAR, PKCE S256, private_key_jwt, DPoP)")
        action.add_argument("--post-logout-redirect-uri", action="append", default=[], metavar="URI",
                            help="where sign-out may send the browser back (OpenID Connect RP-Initiated Logout "
                                 "1.0; repeat; update: replaces the list)")
        action.add_argument("--backchannel-logout-uri", metavar="URL",
                            help="where authgate POSTs a logout token when a session the client took part in "
                                 "ends (OpenID Connect Back-Channel Logout 1.0; https; update: \"\" removes it)")
        action.add_argument("--backchannel-logout-session-required", action=argparse.BooleanOptionalAction,
                            default=None, help="the client needs sid in every logout token")
        action.add_argument("--id-token-signed-response-alg", metavar="ALG",
                            help="the JWS algorithm of the client's ID and logout tokens (OpenID Connect Dynamic "
                                 "Client Registration 1.0 2): RS256 (the default) or the stack's SigningAlgorithm")
        action.add_argument("--require-par", action=argparse.BooleanOptionalAction, default=None,
                            help="authorization requests must be pushed to /oauth/par (RFC 9126)")
        action.add_argument("--resource-scopes", action="append", default=[], metavar='"RESOURCE=SCOPES"',
                            help="the scopes of a registered resource granted to the client, all a client_credentials "
                                 'token may hold of it: "https://mcp.example.com/mcp=mcp:read mcp:write" (repeat per '
                                 'resource; update: replaces that resource\'s grant, "RESOURCE=" withdraws it)')

    rotate = sub.add_parser("rotate-secret", help="new secret, printed once; the old one stops working at once")
    rotate.add_argument("client_id", metavar="CLIENT_ID")

    listing = sub.add_parser("list", help="every client (secrets are never shown)")
    delete = sub.add_parser("delete", help="remove a client: an administrator's, a dynamically registered one, or a "
                                           "cached metadata document (its https client_id)")
    delete.add_argument("client_id", metavar="CLIENT_ID")
    for action in (create, update, rotate, listing, delete):
        action.add_argument("--json", action="store_true", help="machine-readable output")
        target.add_arguments(action)
        action.set_defaults(func=_run)
