"""The actions of `authgate users` on the stack acted on: create, list, show, update, disable, enable, unlock,
reset-password, delete (docs/users.md); show lists the linked identities (user_identities). The tenant is known to
exist (authgate_cli.admin.users.act). What support does to a person (disable, enable, unlock, reset-mfa,
revoke-sessions, send-reset-link) is the runtime's authgate.people.actions, which the console calls too: `operated` says its outcome."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import IO, Any

from authgate_cli.admin import arguments
from authgate_cli.admin.user_identities import linked, remove_links, views, write_links
from authgate_cli.admin.user_input import check_create, read_password
from authgate_cli.admin.user_views import done, fail, unknown_user, view, write_record, write_table


def _email_free(args: argparse.Namespace) -> None:
    """An email names one user of its tenant (forgotten passwords find the user by it)."""
    from authgate.stores.users import UserStore

    if not getattr(args, "email", None):
        return
    others = [u.username for u in UserStore().by_email(args.tenant, args.email) if u.username != args.username]
    if others:
        raise arguments.InvalidInput(f"the email {args.email!r} is already user {others[0]!r}'s in tenant "
                                     f"{args.tenant!r}")


def create_user(args: argparse.Namespace, out: IO[str] = sys.stdout, stdin: IO[str] | None = None) -> int:
    from authgate.stores.users import UserStore
    from authgate.users.errors import UserExists

    try:
        check_create(args, stdin)
        _email_free(args)
        password = read_password(args, stdin)
    except arguments.InvalidInput as exc:
        return fail(str(exc))
    profile = {"name": args.name or "", "email": args.email or "", "email_verified": bool(args.email_verified)}
    store = UserStore()
    replaced = store.get(args.tenant, args.username) if args.overwrite else None
    try:
        user = store.create(args.tenant, args.username, password, overwrite=args.overwrite, **profile)
    except UserExists:
        sys.stderr.write(f"authgate users: user {args.username!r} already exists in tenant {args.tenant!r} "
                         "(use --overwrite to replace it, or `authgate users reset-password`)\n")
        return 1
    if replaced is not None:
        # The replaced person's identities at IdPs were theirs, not the new user's.
        remove_links(replaced)
    return done(args, user, out, "created")


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
    from authgate.stores.users import UserStore

    try:
        _email_free(args)
    except arguments.InvalidInput as exc:
        return fail(str(exc))
    return _change(args, out, "updated", lambda store: store.update_profile(
        args.tenant, args.username, name=args.name, email=args.email, email_verified=args.email_verified),
        UserStore())


def _change(args: argparse.Namespace, out: IO[str], what: str, change: Callable[[Any], Any], store: Any,
            *, ends_sessions: bool = False) -> int:
    """Apply `change`; when it `ends_sessions`, the clients of the sessions that counted until now are sent
    back-channel logout tokens (authgate.people.actions.announce_ended)."""
    from authgate.people.actions import announce_ended, standing
    from authgate.users.errors import UserNotFound

    before = store.get(args.tenant, args.username) if ends_sessions else None
    ended = standing(before) if before is not None else []
    try:
        user = change(store)
    except UserNotFound:
        return unknown_user(args)
    announce_ended(ended, _issuer())
    return done(args, user, out, what)


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
    out.write(json.dumps(outcome.figures or view(outcome.user), indent=2) + "\n" if args.json else outcome.said + "\n")
    return 0


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
    from authgate.stores.users import UserStore

    if UserStore().get(args.tenant, args.username) is None:
        return unknown_user(args)
    try:
        password = read_password(args, stdin)
    except arguments.InvalidInput as exc:
        return fail(str(exc))
    return _change(args, out, "given a temporary password (changed at the next sign-in; its sessions and "
                              "refresh tokens end now)",
                   lambda store: store.reset_password(args.tenant, args.username, password), UserStore(),
                   ends_sessions=True)


def delete_user(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.people.actions import announce_ended, remove_passkeys, standing
    from authgate.stores.linked_identities import LinkedIdentityStore
    from authgate.stores.users import UserStore
    from authgate.users.errors import UserNotFound

    store = UserStore()
    user = store.get(args.tenant, args.username)
    if user is None:
        return unknown_user(args)
    ended = standing(user)
    try:
        # With its linked identities, in one transaction: no identity signs in as a user that is gone.
        LinkedIdentityStore().delete_user(user)
    except UserNotFound:
        return unknown_user(args)
    announce_ended(ended, _issuer())
    # Personal data: the person's passkeys go with them (a user created again under the name has none).
    remove_passkeys(args.tenant, args.username)
    if args.json:
        out.write(json.dumps({"tenant_id": user.tenant_id, "username": user.username, "user_id": user.user_id,
                              "deleted": True}, indent=2) + "\n")
    else:
        out.write(f"user {user.username} deleted from tenant {user.tenant_id} (its sessions and refresh tokens "
                  "end now)\n")
    return 0
