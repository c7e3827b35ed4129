"""`authgate idps create | list | show | update | delete`: a tenant's identity providers, for ID-JAGs and for sign-in.

An IdP is its issuer identifier. Trusted for Identity Assertion JWT Authorization Grants
(draft-ietf-oauth-identity-assertion-authz-grant): its keys (`--jwks-uri`, or `--jwks-file`, a JWK
Set stored with it), how its `sub` maps to a user (`--user-match sub|email`) and whether unknown
people become users (`--create-users`). Offered for sign-in (`--protocol oidc`, or a `--preset`
google|apple): the client it registered for authgate (`--client-id`, `--client-secret-file`, or
Apple's `--apple-team-id`, `--apple-key-id`, `--apple-private-key-file`), the scopes, the button's
`--label`, the email `--domain`s it signs in, and what its word is trusted for (`--trust-email`,
`--trust-mfa VALUES`, `--step-up`) and which claims say what (`--claim`). Secrets are read from files,
sealed before they are stored (authgate.federation.secrets) and never printed. Acts on the running
`authgate serve` stack by default, or on a deployed stack (`--stack-name`), through authgate_cli.admin.target.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import IO, Any

from authgate.identity_providers.model import PRESETS, PROTOCOLS, STEP_UPS, USER_MATCHES
from authgate_cli.admin import arguments, idp_input, target, text, unknown

# Kept under these names for the tests of what create accepts.
issuer, jwks_uri, jwks_file = idp_input.issuer, idp_input.jwks_uri, idp_input.jwks_file
OIDC_FIELDS = ("client_id", "scopes", "preset", "apple_team_id", "apple_key_id")
SECRET_FIELDS = ("client_secret", "apple_private_key")
UPDATES = ("--protocol, --id, --label, --domain, --no-domains, --client-id, --client-secret-file, --scopes, "
           "--apple-team-id, --apple-key-id, --apple-private-key-file, --metadata-url, --metadata-file, --jwks-uri, "
           "--jwks-file, --user-match, "
           "--create-users/--no-create-users, --trust-email/--no-trust-email, --trust-mfa/--no-trust-mfa, "
           "--step-up or --claim")


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


def _changes(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, str]]:
    """The record's fields the flags set, and the secrets they read (in clear, sealed once the stack is known)."""
    changes: dict[str, Any] = _keys(args)
    saml = _saml(args)
    if saml is not None:
        changes["saml"] = saml
    given = {"protocol": args.protocol, "user_match": args.user_match, "create_users": args.create_users,
             "trust_email": args.trust_email, "step_up": args.step_up}
    changes.update({k: v for k, v in given.items() if v is not None})
    checked: dict[str, tuple[Any, Callable[[Any], Any]]] = {"idp_id": (args.id, idp_input.idp_id), "label": (args.label, idp_input.label),
               "domains": (args.domain, idp_input.domains), "client_id": (args.client_id, _client_id),
               "scopes": (args.scopes, idp_input.scopes), "claims": (args.claim, idp_input.claims),
               "apple_team_id": (args.apple_team_id, lambda v: idp_input.apple_id(v, "--apple-team-id")),
               "apple_key_id": (args.apple_key_id, lambda v: idp_input.apple_id(v, "--apple-key-id"))}
    changes.update({field: check(value) for field, (value, check) in checked.items() if value is not None})
    if args.trust_mfa is not None:
        values = idp_input.mfa_values(args.trust_mfa)
        changes.update(trust_mfa=bool(values), mfa_values=values)
    if getattr(args, "no_domains", False):
        changes["domains"] = ()
    secrets = {}
    if args.client_secret_file is not None:
        secrets["client_secret"] = idp_input.client_secret_file(args.client_secret_file)
    if args.apple_private_key_file is not None:
        secrets["apple_private_key"] = idp_input.apple_private_key_file(args.apple_private_key_file)
    return changes, secrets


def _saml(args: argparse.Namespace) -> dict[str, Any] | None:
    """The `saml` map --metadata-url or --metadata-file names (fetched or read once per command), or None."""
    from authgate_cli.admin.saml_metadata import saml_metadata

    if "saml_read" not in vars(args):
        args.saml_read = saml_metadata(args.metadata_url, args.metadata_file)
    saml: dict[str, Any] | None = args.saml_read
    return saml


def _client_id(value: str) -> str:
    return arguments.identifier(value, "--client-id")


def _preset(args: argparse.Namespace) -> dict[str, Any]:
    """What `--preset` fills in, and the issuer create acts on."""
    if args.preset is None:
        saml = _saml(args)
        if saml is not None:  # a SAML IdP's issuer is its metadata's entityID (any URI, http or urn too)
            if args.issuer not in (None, saml["entity_id"]):
                raise arguments.InvalidInput(f"the metadata's entityID is {saml['entity_id']!r}: leave --issuer out")
            return {"issuer": saml["entity_id"], "protocol": "saml"}
        if args.issuer is None:
            raise arguments.InvalidInput("create needs --issuer URL (or --preset google|apple)")
        return {"issuer": issuer(args.issuer)}
    preset = idp_input.PRESETS[args.preset]
    if args.issuer is not None and args.issuer != preset.issuer:
        raise arguments.InvalidInput(f"--preset {args.preset} is the issuer {preset.issuer}: leave --issuer out")
    if args.protocol not in (None, "oidc"):
        raise arguments.InvalidInput(f"--preset {args.preset} is an OpenID Connect provider: leave --protocol out")
    return {"issuer": preset.issuer, "preset": args.preset, "protocol": "oidc", "label": preset.label,
            "scopes": preset.scopes, "claims": preset.claims, "idp_id": args.preset}


def complete(idp: Any, secrets: dict[str, str]) -> Any:
    """`idp` as it will be stored (sign_in set), once what its protocol needs is there; InvalidInput otherwise."""
    has = {field: bool(secrets.get(field) or getattr(idp, field)) for field in SECRET_FIELDS}
    if idp.saml and (idp.protocol != "saml" or idp.saml["entity_id"] != idp.issuer):
        raise arguments.InvalidInput("--metadata-url and --metadata-file are for --protocol saml, with the IdP's own "
                                      f"metadata (its entityID is {idp.saml['entity_id']!r}, not {idp.issuer!r})"
                                      if idp.protocol == "saml" else
                                      "--metadata-url and --metadata-file are for --protocol saml")
    if idp.protocol == "":
        stray = next((f for f in (*OIDC_FIELDS, *SECRET_FIELDS) if getattr(idp, f) or secrets.get(f)), None)
        if stray:
            raise arguments.InvalidInput(f"--{stray.replace('_', '-')} is for sign-in: give --protocol oidc too")
        if not idp.jwks_uri and not idp.jwks:
            raise arguments.InvalidInput("create needs --jwks-uri URL or --jwks-file FILE (the IdP's signing keys)")
    elif idp.protocol == "oidc":
        if not idp.client_id:
            raise arguments.InvalidInput("--protocol oidc needs --client-id (the client the IdP registered for "
                                          "authgate)")
        apple = idp.preset == "apple"
        if apple and not (idp.apple_team_id and idp.apple_key_id and has["apple_private_key"]):
            raise arguments.InvalidInput("--preset apple needs --apple-team-id, --apple-key-id and "
                                          "--apple-private-key-file (instead of a client secret)")
        if apple and has["client_secret"]:
            raise arguments.InvalidInput("--preset apple signs its own client secret: leave --client-secret-file out")
        if not apple and (idp.apple_team_id or idp.apple_key_id or has["apple_private_key"]):
            raise arguments.InvalidInput("--apple-team-id, --apple-key-id and --apple-private-key-file are for "
                                          "--preset apple")
        if not apple and not has["client_secret"]:
            raise arguments.InvalidInput("--protocol oidc needs --client-secret-file FILE (the client secret the IdP "
                                          "issued)")
    elif idp.protocol == "saml" and not idp.saml:
        raise arguments.InvalidInput("--protocol saml needs --metadata-url URL or --metadata-file FILE (the IdP's "
                                      "SAML metadata)")
    return idp._replace(sign_in=idp.protocol == "oidc" or bool(idp.saml))


def _sealed(idp: Any, secrets: dict[str, str]) -> Any:
    from authgate.federation import secrets as sealing

    return idp._replace(**{field: sealing.seal(idp.tenant_id, idp.issuer, field, value)  # type: ignore[arg-type]
                           for field, value in secrets.items()})


def _view(idp: Any) -> dict[str, Any]:
    """The record as shown, with what its administrator registers at an OpenID Provider for authgate: the redirect
    URI, and for sign-out the post-logout redirect URI and the back-channel logout URI
    (docs/federation.md#what-to-register-at-the-idp)."""
    from authgate.identity_providers.model import (
        backchannel_logout_uri,
        post_logout_redirect_uri,
        redirect_uri,
    )
    from authgate.settings import get_settings

    view: dict[str, Any] = idp.public_view()
    issuer = get_settings().issuer
    view["redirect_uri"] = redirect_uri(issuer) if idp.sign_in and issuer else None
    oidc = idp.sign_in and idp.protocol == "oidc" and bool(issuer)
    view["post_logout_redirect_uri"] = post_logout_redirect_uri(issuer) if oidc else None
    view["backchannel_logout_uri"] = backchannel_logout_uri(issuer, idp.tenant_id, idp.idp_id) \
        if oidc and idp.idp_id else None
    return view


def _show(idp: Any, args: argparse.Namespace, out: IO[str]) -> int:
    view = _view(idp)
    if args.json:
        out.write(json.dumps(view, indent=2) + "\n")
        return 0
    view["jwks"] = text.count(len(idp.jwks), "key") + " inline" if idp.jwks else None
    view["claims"] = " ".join(f"{k}={v}" for k, v in idp.claims) or None
    text.record(view, out)
    return 0


def _table(idps: list[Any], out: IO[str]) -> None:
    text.table(("TENANT", "ID", "ISSUER", "PROTOCOL", "SIGN-IN", "DOMAINS", "KEYS", "CREATE USERS"),
               ((i.tenant_id, i.idp_id or "-", i.issuer, i.protocol or "id-jag", "yes" if i.sign_in else "no",
                 ",".join(i.domains) or "-",
                 i.jwks_uri or (f"{text.count(len(i.jwks), 'key')} inline" if i.jwks else "discovery"),
                 "yes" if i.create_users else "no") for i in idps), out)


def _unknown(args: argparse.Namespace) -> int:
    return _fail(unknown.identity_provider(args.tenant, args.issuer))


def _clash(idp: Any, others: list[Any]) -> str:
    """Why `idp` cannot sit beside the tenant's other IdPs ("" when it can): its id or a domain taken."""
    for other in others:
        if other.issuer == idp.issuer:
            continue
        if idp.idp_id and other.idp_id == idp.idp_id:
            return f"tenant {idp.tenant_id!r} already has an identity provider with id {idp.idp_id!r} " \
                   f"({other.issuer}): choose another --id"
        taken = set(idp.domains) & set(other.domains)
        if taken:
            return f"domain {min(taken)!r} already sends people to {other.issuer} (one IdP per domain)"
    return ""


def create_idp(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate import clock
    from authgate.identity_providers.errors import IdentityProviderExists
    from authgate.identity_providers.model import IdentityProvider
    from authgate.stores.identity_providers import IdentityProviderStore

    idp, secrets = _create_record(args)
    store = IdentityProviderStore()
    clash = _clash(idp, store.of_tenant(idp.tenant_id))
    if clash:
        return _fail(clash, 1)
    idp = _sealed(idp, secrets)._replace(created_at=clock.seconds())
    assert isinstance(idp, IdentityProvider)
    try:
        store.create(idp)
    except IdentityProviderExists:
        return _fail(f"tenant {args.tenant!r} already trusts {idp.issuer!r} (use `authgate idps update`)", 1)
    return _show(idp, args, out)


def _create_record(args: argparse.Namespace) -> tuple[Any, dict[str, str]]:
    """The record create will store (secrets still in clear beside it); InvalidInput for what does not hold."""
    from authgate.identity_providers.model import IdentityProvider

    base = _preset(args)
    changes, secrets = _changes(args)
    fields = {**base, **changes}
    if fields.get("protocol") is None and ("client_id" in fields or secrets):
        fields["protocol"] = "oidc"
    if fields.get("protocol") and "idp_id" not in fields:
        fields["idp_id"] = idp_input.derived_id(fields.get("label", ""), fields["issuer"])
    idp = IdentityProvider(tenant_id=args.tenant, **fields)
    return complete(idp, secrets), secrets


def list_idps(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.identity_providers import IdentityProviderStore

    store = IdentityProviderStore()
    found = sorted(store.of_tenant(args.tenant) if args.tenant else store.list(),
                   key=lambda i: (i.tenant_id, i.issuer))
    if args.json:
        out.write(json.dumps([_view(i) for i in found], indent=2) + "\n")
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
    changes, secrets = _changes(args)
    updated = idp._replace(**changes)
    if updated.protocol and not updated.idp_id:
        updated = updated._replace(idp_id=idp_input.derived_id(updated.label, updated.issuer))
    try:
        updated = complete(updated, secrets)
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
    clash = _clash(updated, store.of_tenant(idp.tenant_id))
    if clash:
        return _fail(clash, 1)
    updated = _sealed(updated, secrets)
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
        out.write(f"tenant {args.tenant} no longer trusts {args.issuer}: its ID-JAGs and sign-ins are refused "
                  "from now on\n")
    return 0


ACTIONS = {"create": create_idp, "list": list_idps, "show": show_idp, "update": update_idp, "delete": delete_idp}


def _validate(args: argparse.Namespace) -> None:
    """Refuse bad input before a stack is looked for or anything is written."""
    if args.tenant is not None:
        arguments.identifier(args.tenant, "--tenant")
    if args.idps_command == "list":
        return
    if args.idps_command == "create":
        _create_record(args)
        return
    idp_input.record_issuer(args.issuer)
    if args.idps_command == "update":
        changes, secrets = _changes(args)
        if not changes and not secrets:
            raise unknown.nothing_to_change("idps", UPDATES)


def _run(args: argparse.Namespace) -> int:
    try:
        if getattr(args, "jwks_uri", None) is not None and getattr(args, "jwks_file", None) is not None:
            raise arguments.InvalidInput("give --jwks-uri or --jwks-file, not both")
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
    for action in (create, listing, show, update, delete):
        action.add_argument("--json", action="store_true", help="machine-readable output")
        target.add_arguments(action)
        action.set_defaults(func=_run)
