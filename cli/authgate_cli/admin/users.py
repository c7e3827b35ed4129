"""`authgate users create | list | show | update | disable | enable | delete | reset-password | unlock |
reset-mfa`.

A user is (tenant, username) with a stable `user_id`, a display name, an email and whether it is
verified (docs/users.md). Passwords are read from --password-stdin or prompted for, never taken as
an argument that would land in shell history; without a terminal to prompt on, --password-stdin is
required. Arguments are checked before any stack is looked up, the tenant and the user once it is
known; a refusal is one line on stderr and exit status 2. Acts on the running local stack or a
deployed one (`--url` / `--stack-name`); `--json` prints the user's record (never its password hash).

Disabling, resetting the password of, or deleting a user ends at once every session and refresh
token issued to it (its `sessions_valid_after`, or no record at all); deleting removes the record
and every personal attribute in it.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
import unicodedata
from collections.abc import Callable
from typing import IO, Any

from authgate_cli.admin import arguments, target

MIN_PASSWORD = 8
MAX_PASSWORD = 1024
MAX_USERNAME = 128


def check_create(args: argparse.Namespace, stdin: IO[str] | None = None) -> None:
    """Refuse bad arguments, and a prompt nobody can answer, before any stack is looked up."""
    check_user(args)
    check_profile(args)
    check_password_source(args, stdin)


def check_user(args: argparse.Namespace) -> None:
    arguments.identifier(args.tenant, "--tenant")
    arguments.text(args.username, "--username", limit=MAX_USERNAME)


def check_profile(args: argparse.Namespace) -> None:
    if getattr(args, "name", None):
        arguments.text(args.name, "--name")
    if getattr(args, "email", None):
        arguments.email(args.email)
    if getattr(args, "email_verified", None) and not getattr(args, "email", None) and args.users_command == "create":
        raise arguments.InvalidInput("--email-verified needs --email")


def check_password_source(args: argparse.Namespace, stdin: IO[str] | None = None) -> None:
    if not args.password_stdin and not (stdin or sys.stdin).isatty():
        raise arguments.InvalidInput("no terminal to ask for the password on: pipe it in with --password-stdin")


def read_password(args: argparse.Namespace, stdin: IO[str] | None = None) -> str:
    if args.password_stdin:
        password = (stdin or sys.stdin).readline().rstrip("\r\n")
    else:
        try:
            password = getpass.getpass(f"password for {args.username}: ")
        except (EOFError, KeyboardInterrupt):
            raise arguments.InvalidInput("no password given") from None
    if len(password) < MIN_PASSWORD:
        raise arguments.InvalidInput(f"the password must have at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise arguments.InvalidInput(f"the password must have at most {MAX_PASSWORD} characters")
    if any(unicodedata.category(c) == "Cc" for c in password):
        raise arguments.InvalidInput("the password contains a control character")
    if password == args.username:
        raise arguments.InvalidInput("the password must not be the username")
    return password


def view(user: Any) -> dict[str, Any]:
    """The JSON view of a user: every public field and whether the sign-in throttle locks it now."""
    from authgate import clock, records
    from authgate.users.model import FIELDS

    return {**records.public_view(FIELDS, user._asdict()), "locked": user.locked(clock.seconds())}


def _state(user: Any) -> str:
    from authgate import clock

    flags = [flag for flag, on in (("disabled", user.disabled), ("locked", user.locked(clock.seconds())),
                                   ("must-change-password", user.must_change_password)) if on]
    return ",".join(flags) or "active"


def _fail(message: str) -> int:
    sys.stderr.write(f"authgate users: {message}\n")
    return 2


def _unknown(args: argparse.Namespace) -> int:
    return _fail(f"no user {args.username!r} in tenant {args.tenant!r} "
                 f"(see `authgate users list --tenant {args.tenant}`)")


def _email_free(args: argparse.Namespace) -> None:
    """An email names one user of its tenant (forgotten passwords find the user by it)."""
    from authgate.stores.users import UserStore

    if not getattr(args, "email", None):
        return
    others = [u.username for u in UserStore().by_email(args.tenant, args.email) if u.username != args.username]
    if others:
        raise arguments.InvalidInput(f"the email {args.email!r} is already user {others[0]!r}'s in tenant "
                                     f"{args.tenant!r}")


def _done(args: argparse.Namespace, user: Any, out: IO[str], what: str) -> int:
    out.write(json.dumps(view(user), indent=2) + "\n" if args.json
              else f"user {user.username} {what} in tenant {user.tenant_id}\n")
    return 0


def create_user(args: argparse.Namespace, out: IO[str] = sys.stdout, stdin: IO[str] | None = None) -> int:
    from authgate.stores.users import UserStore
    from authgate.users.errors import UserExists

    try:
        check_create(args, stdin)
        arguments.existing_tenant(args.tenant)
        _email_free(args)
        password = read_password(args, stdin)
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
    profile = {"name": args.name or "", "email": args.email or "", "email_verified": bool(args.email_verified)}
    try:
        user = UserStore().create(args.tenant, args.username, password, overwrite=args.overwrite, **profile)
    except UserExists:
        sys.stderr.write(f"authgate users: user {args.username!r} already exists in tenant {args.tenant!r} "
                         "(use --overwrite to replace it, or `authgate users reset-password`)\n")
        return 1
    return _done(args, user, out, "created")


def list_users(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.users import UserStore

    try:
        arguments.existing_tenant(args.tenant)
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
    users = list(UserStore().of_tenant(args.tenant))
    if args.json:
        out.write(json.dumps([view(u) for u in users], indent=2) + "\n")
        return 0
    rows = [("USERNAME", "USER_ID", "NAME", "EMAIL", "STATE"),
            *((u.username, u.user_id or "-", u.name or "-", (u.email + ("" if u.email_verified else " (unverified)"))
               if u.email else "-", _state(u)) for u in users)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() + "\n")
    return 0


def show_user(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.users import UserStore

    user = UserStore().get(args.tenant, args.username)
    if user is None:
        return _unknown(args)
    if args.json:
        out.write(json.dumps(view(user), indent=2) + "\n")
        return 0
    values = view(user)
    width = max(len(k) for k in values) + 1
    for name, value in values.items():
        shown = ("yes" if value else "no") if isinstance(value, bool) else str(value) if value != "" else "-"
        out.write(f"{(name + ':').ljust(width)} {shown}\n")
    return 0


def update_user(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.users import UserStore

    try:
        _email_free(args)
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
    return _change(args, out, "updated", lambda store: store.update_profile(
        args.tenant, args.username, name=args.name, email=args.email, email_verified=args.email_verified),
        UserStore())


def _change(args: argparse.Namespace, out: IO[str], what: str, change: Callable[[Any], Any], store: Any,
            *, ends_sessions: bool = False) -> int:
    """Apply `change`; when it `ends_sessions`, the clients of the sessions that counted until now are sent
    back-channel logout tokens (authgate_cli.admin.user_sessions.announce_ended)."""
    from authgate.users.errors import UserNotFound
    from authgate_cli.admin.user_sessions import announce_ended, live_sessions

    before = store.get(args.tenant, args.username) if ends_sessions else None
    ended = live_sessions(args.tenant, before) if before is not None else []
    try:
        user = change(store)
    except UserNotFound:
        return _unknown(args)
    announce_ended(ended)
    return _done(args, user, out, what)


def disable_user(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.users import UserStore

    return _change(args, out, "disabled (its sessions and refresh tokens end now)",
                   lambda store: store.set_disabled(args.tenant, args.username, True), UserStore(), ends_sessions=True)


def enable_user(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.users import UserStore

    return _change(args, out, "enabled", lambda store: store.set_disabled(args.tenant, args.username, False),
                   UserStore())


def unlock_user(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    """Clear the account's own throttle and its failed sign-ins counted by the limiter in this window."""
    from authgate.limits.auth_failures import AuthFailureGuard
    from authgate.stores.users import UserStore

    status = _change(args, out, "unlocked", lambda store: store.unlock(args.tenant, args.username), UserStore())
    if status == 0:
        AuthFailureGuard("user").forgive(f"{args.tenant}/{args.username}")
    return status


def reset_password(args: argparse.Namespace, out: IO[str] = sys.stdout, stdin: IO[str] | None = None) -> int:
    from authgate.stores.users import UserStore

    if UserStore().get(args.tenant, args.username) is None:
        return _unknown(args)
    try:
        password = read_password(args, stdin)
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
    return _change(args, out, "given a temporary password (changed at the next sign-in; its sessions and "
                              "refresh tokens end now)",
                   lambda store: store.reset_password(args.tenant, args.username, password), UserStore(),
                   ends_sessions=True)


def delete_user(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from authgate.stores.passkeys import PasskeyStore
    from authgate.stores.users import UserStore
    from authgate.users.errors import UserNotFound
    from authgate_cli.admin.user_sessions import announce_ended, live_sessions

    store = UserStore()
    user = store.get(args.tenant, args.username)
    if user is None:
        return _unknown(args)
    ended = live_sessions(args.tenant, user)
    try:
        store.delete(args.tenant, args.username)
    except UserNotFound:
        return _unknown(args)
    announce_ended(ended)
    # Personal data: the person's passkeys go with them (a user created again under the name has none).
    passkeys = PasskeyStore()
    for passkey in passkeys.of_user(args.tenant, args.username):
        passkeys.remove(args.tenant, args.username, passkey.credential_id)
    if args.json:
        out.write(json.dumps({"tenant_id": user.tenant_id, "username": user.username, "user_id": user.user_id,
                              "deleted": True}, indent=2) + "\n")
    else:
        out.write(f"user {user.username} deleted from tenant {user.tenant_id} (its sessions and refresh tokens "
                  "end now)\n")
    return 0


def reset_mfa(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    """Remove every second factor (one-time codes, recovery codes, passkeys) of a user and end their sessions: a
    person who lost their authenticator enrols again at the next sign-in."""
    from authgate.stores.passkeys import PasskeyStore
    from authgate.stores.user_factors import UserFactorStore
    from authgate.users.errors import UserNotFound

    try:
        check_user(args)
        arguments.existing_tenant(args.tenant)
    except arguments.InvalidInput as exc:
        sys.stderr.write(f"authgate users: {exc}\n")
        return 2
    from authgate.stores.users import UserStore
    from authgate_cli.admin.user_sessions import announce_ended, live_sessions

    user = UserStore().get(args.tenant, args.username)
    sessions = live_sessions(args.tenant, user) if user is not None else []
    try:
        ended = UserFactorStore().reset(args.tenant, args.username)
    except UserNotFound:
        sys.stderr.write(f"authgate users: no user {args.username!r} in tenant {args.tenant!r}\n")
        return 1
    announce_ended(sessions)
    passkeys = PasskeyStore()
    removed = sum(passkeys.remove(args.tenant, args.username, p.credential_id)
                  for p in passkeys.of_user(args.tenant, args.username))
    if args.json:
        out.write(json.dumps({"tenant_id": args.tenant, "username": args.username, "second_factors": [],
                              "passkeys_removed": removed, "sessions_valid_after": ended}) + "\n")
    else:
        out.write(f"second factors of {args.username} in tenant {args.tenant} removed ({removed} passkeys); "
                  "sessions_valid_after set to now\n")
    return 0


ACTIONS: dict[str, Callable[[argparse.Namespace], int]] = {
    "create": create_user, "list": list_users, "show": show_user, "update": update_user,
    "disable": disable_user, "enable": enable_user, "delete": delete_user, "reset-password": reset_password,
    "unlock": unlock_user, "reset-mfa": reset_mfa,
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
            raise arguments.InvalidInput("update needs at least one of --name, --email, --email-verified "
                                         "(see `authgate users update --help`)")
    if command == "reset-password":
        check_password_source(args)


def _run(args: argparse.Namespace) -> int:
    try:
        _validate(args)
    except arguments.InvalidInput as exc:
        return _fail(str(exc))
    return target.run(args, "users", lambda: ACTIONS[args.users_command](args))


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "users", help="manage users (create, list, show, update, disable, enable, delete, reset-password, unlock, "
                 "reset-mfa, sessions, revoke-sessions)",
        description="Manage the users of a tenant.")
    sub = parser.add_subparsers(dest="users_command", required=True, metavar="ACTION")
    create = sub.add_parser("create", help="add a user; the password is stored as scrypt")
    listing = sub.add_parser("list", help="every user of a tenant")
    show = sub.add_parser("show", help="one user, every field")
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
    for action in (create, listing, show, update, disable, enable, delete, reset, unlock, mfa):
        action.add_argument("--tenant", required=True)
        if action is not listing:
            action.add_argument("--username", required=True)
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
    for action in (create, listing, show, update, disable, enable, delete, reset, unlock, mfa):
        action.add_argument("--json", action="store_true", help="machine-readable output")
        target.add_arguments(action)
        action.set_defaults(func=_run)
    from authgate_cli.admin import user_sessions

    user_sessions.register_actions(sub)
