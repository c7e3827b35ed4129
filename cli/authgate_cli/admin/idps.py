"""`authgate idps create | list | show | update | delete`: a tenant's identity providers, for ID-JAGs and for sign-in.

An IdP is its issuer identifier. Trusted for Identity Assertion JWT Authorization Grants
(draft-ietf-oauth-identity-assertion-authz-grant): its keys (`--jwks-uri`, or `--jwks-file`, a JWK
Set stored with it), how its `sub` maps to a user (`--user-match sub|email`) and whether unknown
people become users (`--create-users`). Offered for sign-in (`--protocol oidc`, or a `--preset`
google|apple): the client it registered for authgate (`--client-id`, `--client-secret-file`, or
Apple's `--apple-team-id`, `--apple-key-id`, `--apple-private-key-file`), the scopes, the button's
`--label`, the email `--domain`s it signs in, and what its word is trusted for (`--trust-email`,
`--trust-mfa VALUES`, `--step-up`) and which claims say what (`--claim`). `update --protocol` turns an
OpenID Provider into a SAML IdP or back, the IdP kept; while people are linked to it, only with
`--relink-by-email` (their links removed, each linked again by their verified email). Secrets are read from files,
sealed before they are stored (authgate.federation.secrets) and never printed. The checks and the actions are
authgate.administration.identity_providers', which the console calls too; this module maps the flags onto them.
Acts on the running
`authgate serve` stack by default, or on a deployed stack (`--stack-name`), through authgate_cli.admin.target.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from authgate.identity_providers.model import PRESETS, PROTOCOLS, STEP_UPS, USER_MATCHES
from authgate_cli.admin import arguments, idp_input, target, text, unknown

# Kept under these names for the tests of what create accepts.
issuer, jwks_uri, jwks_file = idp_input.issuer, idp_input.jwks_uri, idp_input.jwks_file
UPDATES = ("--protocol, --id, --label, --domain, --no-domains, --client-id, --client-secret-file, --scopes, "
           "--apple-team-id, --apple-key-id, --apple-private-key-file, --metadata-url, --metadata-file, --jwks-uri, "
           "--jwks-file, --user-match, "
           "--create-users/--no-create-users, --trust-email/--no-trust-email, --trust-mfa/--no-trust-mfa, "
           "--step-up or --claim")


def _fail(message: str, status: int = 2) -> int:
    sys.stderr.write(f"authgate idps: {message}\n")
    return status


def _keys(args: argparse.Namespace) -> dict[str, Any] | None:
    """The key source the arguments name: None when neither flag is given."""
    if args.jwks_uri is not None:
        return {"jwks_uri": jwks_uri(args.jwks_uri), "jwks": ()}
    if args.jwks_file is not None:
        return {"jwks_uri": "", "jwks": jwks_file(args.jwks_file)}
    return None


def _given(args: argparse.Namespace) -> Any:
    """What the flags give (authgate.administration.identity_providers.Given), the keys and SAML metadata read."""
    from authgate.administration.identity_providers import Given

    return Given(issuer=getattr(args, "issuer", None) if args.idps_command == "create" else None,
                 preset=getattr(args, "preset", None), protocol=args.protocol, idp_id=args.id, label=args.label,
                 domains=args.domain, no_domains=getattr(args, "no_domains", False), client_id=args.client_id,
                 scopes=args.scopes, apple_team_id=args.apple_team_id, apple_key_id=args.apple_key_id,
                 user_match=args.user_match, create_users=args.create_users, trust_email=args.trust_email,
                 trust_mfa=args.trust_mfa, step_up=args.step_up, claims=args.claim, keys=_keys(args),
                 saml=_saml(args), relink_by_email=getattr(args, "relink_by_email", False))


def _secrets(args: argparse.Namespace) -> dict[str, str]:
    """The secrets the flags' files hold, in clear (sealed by the action before anything is stored)."""
    secrets = {}
    if args.client_secret_file is not None:
        secrets["client_secret"] = idp_input.client_secret_file(args.client_secret_file)
    if args.apple_private_key_file is not None:
        secrets["apple_private_key"] = idp_input.apple_private_key_file(args.apple_private_key_file)
    return secrets


def _saml(args: argparse.Namespace) -> dict[str, Any] | None:
    """The `saml` map --metadata-url or --metadata-file names (fetched or read once per command), or None."""
    from authgate_cli.admin.saml_metadata import saml_metadata

    if "saml_read" not in vars(args):
        args.saml_read = saml_metadata(args.metadata_url, args.metadata_file)
    saml: dict[str, Any] | None = args.saml_read
    return saml


def _show(idp: Any, args: argparse.Namespace, out: IO[str]) -> int:
    from authgate.administration.identity_providers import view
    from authgate.settings import get_settings

    shown = view(idp, get_settings().issuer)
    if args.json:
        out.write(json.dumps(shown, indent=2) + "\n")
        return 0
    shown["jwks"] = text.count(len(idp.jwks), "key") + " inline" if idp.jwks else None
    shown["claims"] = " ".join(f"{k}={v}" for k, v in idp.claims) or None
    text.record(shown, out)
    return 0


def _table(idps: list[Any], out: IO[str]) -> None:
    text.table(("TENANT", "ID", "ISSUER", "PROTOCOL", "SIGN-IN", "DOMAINS", "KEYS", "CREATE USERS"),
               ((i.tenant_id, i.idp_id or "-", i.issuer, i.protocol or "id-jag", "yes" if i.sign_in else "no",
                 ",".join(i.domains) or "-",
                 i.jwks_uri or (f"{text.count(len(i.jwks), 'key')} inline" if i.jwks else "discovery"),
                 "yes" if i.create_users else "no") for i in idps), out)


def _unknown(args: argparse.Namespace) -> int:
    return _fail(unknown.identity_provider(args.tenant, args.issuer))


def create_idp(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.administration.identity_providers import Refused, create

    try:
        idp = create(args.tenant, _given(args), _secrets(args))
    except Refused as exc:
        return _fail(str(exc), 1)
    return _show(idp, args, out)


def list_idps(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.administration.identity_providers import view
    from authgate.settings import get_settings
    from authgate.stores.identity_providers import IdentityProviderStore

    store = IdentityProviderStore()
    found = sorted(store.of_tenant(args.tenant) if args.tenant else store.list(),
                   key=lambda i: (i.tenant_id, i.issuer))
    if args.json:
        out.write(json.dumps([view(i, get_settings().issuer) for i in found], indent=2) + "\n")
    else:
        _table(found, out)
    return 0


def show_idp(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.identity_providers import IdentityProviderStore

    idp = IdentityProviderStore().get(args.tenant, args.issuer)
    return _unknown(args) if idp is None else _show(idp, args, out)


def update_idp(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.administration.identity_providers import Refused, update
    from authgate.identity_providers.errors import IdentityProviderNotFound

    try:
        idp = update(args.tenant, args.issuer, _given(args), _secrets(args))
    except IdentityProviderNotFound:
        return _unknown(args)
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
    except Refused as exc:
        return _fail(str(exc), 1)
    return _show(idp, args, out)


def delete_idp(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.administration.identity_providers import delete
    from authgate.identity_providers.errors import IdentityProviderNotFound

    try:
        said = delete(args.tenant, args.issuer)
    except IdentityProviderNotFound:
        return _unknown(args)
    if args.json:
        out.write(json.dumps({"tenant": args.tenant, "issuer": args.issuer, "deleted": True}) + "\n")
    else:
        out.write(said + "\n")
    return 0


ACTIONS = {"create": create_idp, "list": list_idps, "show": show_idp, "update": update_idp, "delete": delete_idp}


def _validate(args: argparse.Namespace) -> None:
    """Refuse bad input before a stack is looked for or anything is written."""
    if args.tenant is not None:
        arguments.identifier(args.tenant, "--tenant")
    if args.idps_command == "list":
        return
    if args.idps_command == "create":
        from authgate.administration.identity_providers import created

        created(args.tenant, _given(args), _secrets(args))
        return
    idp_input.record_issuer(args.issuer)
    if args.idps_command == "update":
        from authgate.administration.identity_providers import changes

        if not changes(_given(args)) and not _secrets(args):
            raise unknown.nothing_to_change("idps", UPDATES)


def _run(args: argparse.Namespace) -> int:
    try:
        if getattr(args, "jwks_uri", None) is not None and getattr(args, "jwks_file", None) is not None:
            raise arguments.InvalidInput(idp_input.BOTH_KEYS)
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


def _sign_in_arguments(action: argparse.ArgumentParser, *, update: bool) -> None:
    action.add_argument("--protocol", choices=PROTOCOLS,
                        help="offer it for sign-in: oidc (OpenID Connect) or saml (SAML 2.0); without it, an IdP is "
                             "trusted for ID-JAGs only")
    action.add_argument("--id", metavar="ID", help="its short id in the tenant (URLs, buttons); default: from the "
                                                   "label or the issuer's host")
    action.add_argument("--label", metavar="TEXT", help='the sign-in button\'s text, e.g. "Acme SSO"')
    action.add_argument("--domain", action="append", metavar="DOMAIN",
                        help="an email domain whose people it signs in (repeat); an email typed on the sign-in page "
                             "goes straight there" + ("; replaces the list" if update else ""))
    if update:
        action.add_argument("--no-domains", action="store_true", help="forget its email domains")
    action.add_argument("--client-id", metavar="ID", help="the client id the IdP registered for authgate")
    action.add_argument("--client-secret-file", metavar="FILE",
                        help="a file holding that client's secret (sealed before it is stored, never shown)")
    action.add_argument("--scopes", metavar="SCOPES", help='what a sign-in asks for (default "openid email profile")')
    action.add_argument("--apple-team-id", metavar="TEAM", help="Sign in with Apple: your Apple team id")
    action.add_argument("--apple-key-id", metavar="KID", help="Sign in with Apple: the id of the key below")
    action.add_argument("--apple-private-key-file", metavar="FILE",
                        help="Sign in with Apple: the .p8 private key Apple issued (sealed, never shown)")
    action.add_argument("--metadata-url", metavar="URL",
                        help="SAML: where the IdP publishes its metadata (https; fetched now, its URL kept)")
    action.add_argument("--metadata-file", metavar="FILE", help="SAML: a file holding the IdP's metadata (XML)")
    action.add_argument("--trust-mfa", nargs="+", metavar="VALUE",
                        help="count a sign-in as a second factor when its acr or amr is one of these values")
    action.add_argument("--step-up", choices=STEP_UPS,
                        help="when a second factor is needed and the IdP's sign-in is not trusted as one: authgate's "
                             "own (local, the default) or send the person back to the IdP asking for it (upstream)")
    action.add_argument("--claim", action="extend", nargs="+", metavar="FIELD=NAME",
                        help="which of its claims (SAML: attributes) holds the email, name or groups, e.g. "
                             "email=upn groups=roles")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "idps", help="a tenant's identity providers: for ID-JAGs and sign-in (create, list, show, update, delete)",
        description="The identity providers (Okta, Entra ID, Google, Apple, your own) of a tenant: whose Identity "
                    "Assertion JWT Authorization Grants (ID-JAG) it accepts at the token endpoint, and which its "
                    "people sign in with (OpenID Connect, SAML 2.0). docs/federation.md has recipes.")
    sub = parser.add_subparsers(dest="idps_command", required=True, metavar="ACTION")
    create = sub.add_parser("create", help="add an identity provider")
    listing = sub.add_parser("list", help="the identity providers")
    listing.add_argument("--tenant", help="only this tenant's")
    show = sub.add_parser("show", help="one identity provider")
    update = sub.add_parser("update", help="change what it is trusted for, its keys or its sign-in client")
    delete = sub.add_parser("delete", help="stop trusting an identity provider")
    create.add_argument("--tenant", required=True, help="the tenant that trusts it")
    create.add_argument("--issuer", metavar="URL", help="its issuer identifier (the iss of its ID tokens and ID-JAGs)")
    create.add_argument("--preset", choices=PRESETS,
                        help="Google or Apple: fills in the issuer, scopes and claims (Apple: give its team id, key "
                             "id and private key instead of a client secret)")
    for action in (show, update, delete):
        action.add_argument("--tenant", required=True, help="the tenant that trusts it")
        action.add_argument("--issuer", required=True, metavar="URL", help="its issuer identifier")
    for action in (create, update):
        _sign_in_arguments(action, update=action is update)
        action.add_argument("--jwks-uri", metavar="URL", help="where it publishes its signing keys (https); "
                                                              "sign-in IdPs default to their discovery's")
        action.add_argument("--jwks-file", metavar="FILE", help="a file holding its JWK Set (public keys)")
        action.add_argument("--user-match", choices=USER_MATCHES,
                            help="ID-JAGs: map its sub to the user with that username (sub, the default) or its email "
                                 "claim to the user with that email (email)")
    create.add_argument("--create-users", action="store_true", default=None,
                        help="a person the tenant does not know becomes a user (ID-JAG or first sign-in)")
    create.add_argument("--trust-email", action="store_true", default=None,
                        help="link a person to the local account with the same email when the IdP says the email is "
                             "verified (off by default: otherwise linking needs the account's own proof)")
    update.add_argument("--create-users", dest="create_users", action="store_true", default=None,
                        help="create unknown people as users")
    update.add_argument("--no-create-users", dest="create_users", action="store_false",
                        help="refuse unknown people")
    update.add_argument("--trust-email", dest="trust_email", action="store_true", default=None,
                        help="link by a verified email")
    update.add_argument("--no-trust-email", dest="trust_email", action="store_false",
                        help="link only after the account's own proof")
    update.add_argument("--no-trust-mfa", dest="trust_mfa", action="store_const", const=[],
                        help="never count its sign-ins as a second factor")
    update.add_argument("--relink-by-email", action="store_true",
                        help="with a change of --protocol (oidc <-> saml) while people are linked to it: remove their "
                             "links and link each person again by their verified email at their next sign-in (needs "
                             "--trust-email)")
    for action in (create, listing, show, update, delete):
        action.add_argument("--json", action="store_true", help="machine-readable output")
        target.add_arguments(action)
        action.set_defaults(func=_run)
