"""The actions of `authgate users` on the stack acted on: create, list, show, update, disable, enable, unlock,
reset-password, delete (docs/users.md); show lists the linked identities (user_identities). The tenant is known to
exist (authgate_cli.admin.users.act). What support does to a person (disable, enable, unlock, reset-mfa,
revoke-sessions, send-reset-link) is the runtime's authgate.people.actions, what only an owner does (create, update,
reset-password, delete) authgate.people.accounts; the console calls both too: `operated` says an outcome."""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from authgate.people.identities import linked, views
from authgate.people.profile import email_free
from authgate_cli.admin import arguments
from authgate_cli.admin.user_identities import write_links
from authgate_cli.admin.user_input import check_create, read_password
from authgate_cli.admin.user_views import done, fail, unknown_user, view, write_record, write_table


def create_user(args: argparse.Namespace, out: IO[str] = sys.stdout, stdin: IO[str] | None = None) -> int:
    from authgate.people.accounts import create
    from authgate.users.errors import UserExists

    try:
        check_create(args, stdin)
        email_free(args.tenant, args.username, args.email)
        password = read_password(args, stdin)
        outcome = create(args.tenant, args.username, password, name=args.name or "", email=args.email or "",
                         email_verified=bool(args.email_verified), overwrite=args.overwrite)
    except arguments.InvalidInput as exc:
        return fail(str(exc))
    except UserExists:
        sys.stderr.write(f"authgate users: user {args.username!r} already exists in tenant {args.tenant!r} "
                         "(use --overwrite to replace it, or `authgate users reset-password`)\n")
        return 1
    return done(args, outcome.user, out, "created")


def list_users(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.users import UserStore

    users = list(UserStore().of_tenant(args.tenant))
    if args.json:
        out.write(json.dumps([view(u) for u in users], indent=2) + "\n")
        return 0
    write_table(users, out)
    return 0


def show_user(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.users import UserStore

    user = UserStore().get(args.tenant, args.username)
    if user is None:
        return unknown_user(args)
    identities = views(args.tenant, linked(user))
    if args.json:
        out.write(json.dumps({**view(user), "linked_identities": identities}, indent=2) + "\n")
        return 0
    write_record(user, out)
    write_links(identities, out)
    return 0


def update_user(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.people.accounts import update
    from authgate.users.errors import UserNotFound

    try:
        outcome = update(args.tenant, args.username, name=args.name, email=args.email,
                         email_verified=args.email_verified)
    except arguments.InvalidInput as exc:
        return fail(str(exc))
    except UserNotFound:
        return unknown_user(args)
    return done(args, outcome.user, out, "updated")


def operated(args: argparse.Namespace, out: IO[str], action: str) -> int:
    """disable, enable, unlock, reset-mfa, revoke-sessions: the one implementation (authgate.people.actions), its
    sentence as the console says it, or with --json the person (or the action's figures)."""
    from authgate.people.actions import ACTIONS, ResetLinkRefused
    from authgate.users.errors import UserNotFound

    try:
        outcome = ACTIONS[action](args.tenant, args.username, _issuer())
    except UserNotFound:
        return unknown_user(args)
    except ResetLinkRefused as exc:
        return fail(str(exc))
    return _said(args, outcome, out)


def send_reset_link(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    return operated(args, out, "send-reset-link")


def _issuer() -> str:
    """The stack's issuer, as the links and logout tokens of an action name it."""
    from authgate.settings import get_settings

    return get_settings().issuer


def disable_user(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    return operated(args, out, "disable")


def enable_user(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    return operated(args, out, "enable")


def unlock_user(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    return operated(args, out, "unlock")


def reset_password(args: argparse.Namespace, out: IO[str] = sys.stdout, stdin: IO[str] | None = None) -> int:
    from authgate.people.accounts import reset_password as reset
    from authgate.stores.users import UserStore
    from authgate.users.errors import UserNotFound

    if UserStore().get(args.tenant, args.username) is None:
        return unknown_user(args)
    try:
        outcome = reset(args.tenant, args.username, read_password(args, stdin), _issuer())
    except arguments.InvalidInput as exc:
        return fail(str(exc))
    except UserNotFound:
        return unknown_user(args)
    return _said(args, outcome, out)


def delete_user(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.people.accounts import delete
    from authgate.users.errors import UserNotFound

    try:
        outcome = delete(args.tenant, args.username, _issuer())
    except UserNotFound:
        return unknown_user(args)
    return _said(args, outcome, out)


def _said(args: argparse.Namespace, outcome: Any, out: IO[str]) -> int:
    """An outcome of authgate.people: its sentence, or with --json its figures (none: the person)."""
    out.write(json.dumps(outcome.figures or view(outcome.user), indent=2) + "\n" if args.json else outcome.said + "\n")
    return 0
