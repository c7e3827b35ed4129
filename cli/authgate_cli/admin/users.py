"""`authgate users create | list | show | update | disable | enable | delete | reset-password | unlock |
reset-mfa | sessions | revoke-sessions | send-reset-link | consents | revoke-consent | unlink`.

A user is (tenant, username) with a stable `user_id`, a display name, an email and whether it is
verified (docs/users.md). Passwords are read from --password-stdin or prompted for, never taken as
an argument that would land in shell history; without a terminal to prompt on, --password-stdin is
required. Arguments are checked before any stack is looked up, the tenant once it is known and before
anything else (`act`), then the user; a refusal is one line on stderr and exit status 2. Acts on the running local stack or a
deployed one (`--url` / `--stack-name`); `--json` prints the user's record (never its password hash).

Disabling, resetting the password of, or deleting a user ends at once every session and refresh
token issued to it (its `sessions_valid_after`, or no record at all); deleting removes the record
and every personal attribute in it, and its linked identities. A user's identities at the tenant's
identity providers are listed by `show` and removed one IdP at a time by `unlink --idp ID_OR_ISSUER`.

What it accepts is checked in user_input; the actions are in user_actions (reset-mfa in
user_second_factors, the sessions actions in user_sessions, the consents in user_consents), what they print in user_views.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import IO, Any

from authgate_cli.admin import arguments, target, unknown
from authgate_cli.admin.user_actions import (
    create_user,
    delete_user,
    disable_user,
    enable_user,
    list_users,
    reset_password,
    send_reset_link,
    show_user,
    unlock_user,
    update_user,
)
from authgate_cli.admin.user_consents import list_consents, revoke_consent
from authgate_cli.admin.user_identities import unlink
from authgate_cli.admin.user_input import (
    check_create,
    check_idp,
    check_password_source,
    check_profile,
    check_user,
)
from authgate_cli.admin.user_second_factors import reset_mfa
from authgate_cli.admin.user_sessions import list_sessions, revoke_sessions
from authgate_cli.admin.user_views import fail

ACTIONS: dict[str, Callable[[argparse.Namespace, IO[str]], int]] = {
    "create": create_user, "list": list_users, "show": show_user, "update": update_user,
    "disable": disable_user, "enable": enable_user, "delete": delete_user, "reset-password": reset_password,
    "unlock": unlock_user, "reset-mfa": reset_mfa, "sessions": list_sessions, "revoke-sessions": revoke_sessions,
    "send-reset-link": send_reset_link,
    "consents": list_consents, "revoke-consent": revoke_consent, "unlink": unlink,
}


def _validate(args: argparse.Namespace) -> None:
    """Refuse bad input before a stack is looked for or anything is written."""
    command = args.users_command
    if command == "create":
        check_create(args)
    elif command == "list":
        arguments.identifier(args.tenant, "--tenant")
    else:
        check_user(args)
    if command == "update":
        check_profile(args)
        if args.name is None and args.email is None and args.email_verified is None:
            raise unknown.nothing_to_change("users", "at least one of --name, --email, --email-verified")
    if command == "reset-password":
        check_password_source(args)
    if command == "unlink":
        check_idp(args.idp)
    if command == "revoke-consent":
        arguments.identifier(args.client_id, "--client")


def _run(args: argparse.Namespace) -> int:
    try:
        _validate(args)
    except arguments.InvalidInput as exc:
        return fail(str(exc))
    return target.run(args, "users", lambda: act(args, sys.stdout))


def act(args: argparse.Namespace, out: IO[str]) -> int:
    """The action, on the stack acted on, once the tenant is known to be there."""
    try:
        unknown.existing_tenant(args.tenant)
    except arguments.InvalidInput as exc:
        return fail(str(exc))
    return ACTIONS[args.users_command](args, out)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "users", help="manage users (create, list, show, update, disable, enable, delete, reset-password, unlock, "
                 "reset-mfa, sessions, revoke-sessions, send-reset-link, consents, revoke-consent, unlink)",
        description="Manage the users of a tenant.")
    sub = parser.add_subparsers(dest="users_command", required=True, metavar="ACTION")
    create = sub.add_parser("create", help="add a user; the password is stored as scrypt")
    listing = sub.add_parser("list", help="every user of a tenant")
    show = sub.add_parser("show", help="one user, every field, and its linked identities")
    update = sub.add_parser("update", help="change a user's name, email or whether the email is verified")
    disable = sub.add_parser("disable", help="refuse the user's sign-ins; end its sessions and refresh tokens now")
    enable = sub.add_parser("enable", help="let a disabled user sign in again")
    delete = sub.add_parser("delete", help="remove the user and its personal data; end its sessions and tokens")
    reset = sub.add_parser("reset-password", help="set a temporary password the user must change at the next "
                                                  "sign-in; end its sessions and refresh tokens")
    unlock = sub.add_parser("unlock", help="clear the user's sign-in throttle (failed attempts and lock)")
    mfa = sub.add_parser("reset-mfa", help="remove a user's second factors and end their sessions",
                         description="Remove every second factor of a user (one-time codes, recovery codes and "
                                     "passkeys) and end the sessions and refresh tokens issued to them before now.")
    sessions = sub.add_parser("sessions", help="list a user's sign-in sessions")
    revoke = sub.add_parser("revoke-sessions", help="end every sign-in session of a user now")
    link = sub.add_parser("send-reset-link", help="mail the user a link to choose a new password (it works once, "
                                                  "within 15 minutes)")
    consents = sub.add_parser("consents", help="list the clients a user allowed (remembered consent)")
    withdraw = sub.add_parser("revoke-consent", help="withdraw a user's consent for one client and revoke its grants",
                              description="Forget what the user approved for the client and revoke the grants made "
                                          "under it: the client asks for consent again, its refresh tokens are "
                                          "refused.")
    unlinking = sub.add_parser("unlink", help="remove a user's linked identity at one identity provider",
                               description="Remove the user's identities at one of the tenant's identity providers: "
                                           "they sign in as nobody until linked again.")
    every = (create, listing, show, update, disable, enable, delete, reset, unlock, mfa, sessions, revoke, link,
             consents, withdraw, unlinking)
    for action in every:
        action.add_argument("--tenant", required=True)
        if action is not listing:
            action.add_argument("--username", required=True)
    unlinking.add_argument("--idp", required=True, metavar="ID_OR_ISSUER",
                           help="the identity provider: its id, or its issuer (as `authgate users show` lists them)")
    withdraw.add_argument("--client", dest="client_id", required=True, metavar="CLIENT_ID",
                          help="the client (as `authgate users consents` lists them)")
    for action in (create, update):
        action.add_argument("--name", default=None, help="display name (OIDC `name`; update: \"\" removes it)")
        action.add_argument("--email", default=None,
                            help="email address, unique in the tenant (update: \"\" removes it; a new email is "
                                 "unverified unless --email-verified)")
        action.add_argument("--email-verified", action=argparse.BooleanOptionalAction, default=None,
                            help="whether the email is known to be the user's (OIDC `email_verified`)")
    for action in (create, reset):
        action.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    create.add_argument("--overwrite", action="store_true", help="replace an existing user (a new user_id)")
    for action in every:
        action.add_argument("--json", action="store_true", help="machine-readable output")
        target.add_arguments(action)
        action.set_defaults(func=_run)
