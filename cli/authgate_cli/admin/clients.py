"""`authgate clients create | update | rotate-secret | list | show | delete`: OAuth client registration from the
command line.

A new or rotated secret is printed ONCE (stdout) and stored only as its SHA-256; rotation
invalidates the old secret from the next request (client reads are strongly consistent).
Arguments are checked before any stack is looked up (authgate_cli.admin.arguments), the tenant
once the stack is known; a refusal is one line on stderr and exit status 2, as is a client id the stack does
not have (authgate_cli.admin.unknown).
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
What it accepts and does is authgate.administration.clients and client_registration (the console's too);
client_actions prints it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from authgate.administration import client_registration
from authgate.clients.model import AUTH_METHODS
from authgate_cli.admin import arguments, target, unknown
from authgate_cli.admin.client_actions import (
    asked,
    check_create,
    create_client,
    delete_client,
    list_clients,
    rotate_secret,
    show_client,
    update_client,
)

ACTIONS = {"create": create_client, "update": update_client, "rotate-secret": rotate_secret,
           "list": list_clients, "show": show_client, "delete": delete_client}


def _check_update(args: argparse.Namespace) -> None:
    arguments.identifier(args.client_id, "CLIENT_ID")
    if not client_registration.changes(asked(args)):
        flags = [f"--{change.replace('_', '-')}" for change in client_registration.CHANGES]
        raise unknown.nothing_to_change("clients", f"at least one of {', '.join(flags[:-1])} or {flags[-1]}")
    args.grant = list(client_registration.check_update(asked(args)).grant)


def _run(args: argparse.Namespace) -> int:
    try:
        if args.clients_command == "create":
            check_create(args)
        elif args.clients_command == "update":
            _check_update(args)
        elif args.clients_command != "list":
            arguments.identifier(args.client_id, "CLIENT_ID")
    except arguments.InvalidInput as exc:
        sys.stderr.write(f"authgate clients: {exc}\n")
        return 2
    return target.run(args, "clients", lambda: ACTIONS[args.clients_command](args, sys.stdout))


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("clients", help="manage OAuth clients (create, update, rotate-secret, list, "
                                                   "show, delete)",
                                   description="Register OAuth clients, change their keys and profile, rotate "
                                               "their secrets, list them, delete them.")
    sub = parser.add_subparsers(dest="clients_command", required=True, metavar="ACTION")

    create = sub.add_parser("create", help="register a client; prints its secret once")
    create.add_argument("--client-id", help="the client id (default: generated); an https URL pre-registers a "
                                            "metadata-document client, replacing its cached document")
    create.add_argument("--tenant", required=True, help="tenant the client belongs to")
    create.add_argument("--type", choices=("confidential", "public"), default="confidential")
    create.add_argument("--redirect-uri", action="append", default=[], metavar="URI",
                        help="exact redirect URI (repeat for several)")
    create.add_argument("--scope", action="append", default=[], metavar="SCOPE", help="allowed scope (repeat)")
    create.add_argument("--error-format", choices=("problem", "legacy-a", "legacy-b"), default="problem")
    create.add_argument("--requires-admin-approval", action="store_true",
                        help="users of the tenant can authorize it only after the tenant admin approves it")

    update = sub.add_parser("update", help="change name, keys, authentication method, PAR requirement, profile or "
                                           "resource grants")
    update.add_argument("client_id", metavar="CLIENT_ID")
    for action in (create, update):
        action.add_argument("--name", help="display name, on the consent page (create: default the client id)")
        action.add_argument("--grant", action="append", default=[], metavar="GRANT",
                            help=f"allowed grant type (repeat; on update the list replaces the old one): "
                                 f"{', '.join(arguments.GRANT_NAMES)} (the last {len(arguments.GRANT_URNS)} by short name or URN)")
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
    show = sub.add_parser("show", help="one client, every field (never its secret)")
    show.add_argument("client_id", metavar="CLIENT_ID")
    delete = sub.add_parser("delete", help="remove a client: an administrator's, a dynamically registered one, or a "
                                           "cached metadata document (its https client_id)")
    delete.add_argument("client_id", metavar="CLIENT_ID")
    for action in (create, update, rotate, listing, show, delete):
        action.add_argument("--json", action="store_true", help="machine-readable output")
        target.add_arguments(action)
        action.set_defaults(func=_run)
