"""`authgate users create | reset-mfa`: add a user (password stored as scrypt only) to a tenant; remove a user's
second factors and end their sessions.

The password is read from --password-stdin or prompted for, never taken as an argument that
would land in shell history; without a terminal to prompt on, --password-stdin is required.
Arguments are checked before any stack is looked up, the tenant once it is known; a refusal is
one line on stderr and exit status 2. Acts on the running local stack or a deployed one
(`--stack-name`).
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
import unicodedata
from typing import IO, Any

from authgate_cli.admin import arguments, target

MIN_PASSWORD = 8
MAX_PASSWORD = 1024
MAX_USERNAME = 128


def check_create(args: argparse.Namespace, stdin: IO[str] | None = None) -> None:
    """Refuse bad arguments, and a prompt nobody can answer, before any stack is looked up."""
    check_target(args)
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
    return password


def create_user(args: argparse.Namespace, out: IO[str] = sys.stdout, stdin: IO[str] | None = None) -> int:
    from authgate.stores.users import UserStore
    from authgate.users.errors import UserExists

    try:
        check_create(args, stdin)
        arguments.existing_tenant(args.tenant)
        password = read_password(args, stdin)
    except arguments.InvalidInput as exc:
        sys.stderr.write(f"authgate users: {exc}\n")
        return 2
    try:
        UserStore().create(args.tenant, args.username, password, overwrite=args.overwrite)
    except UserExists:
        sys.stderr.write(f"authgate users: user {args.username!r} already exists in tenant {args.tenant!r} "
                         "(use --overwrite to reset the password)\n")
        return 1
    out.write(f"user {args.username} created in tenant {args.tenant}\n")
    return 0


def reset_mfa(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    """Remove every second factor (one-time codes, recovery codes, passkeys) of a user and end their sessions: a
    person who lost their authenticator enrols again at the next sign-in."""
    from authgate.stores.passkeys import PasskeyStore
    from authgate.stores.user_factors import UserFactorStore
    from authgate.users.errors import UserNotFound

    try:
        check_target(args)
        arguments.existing_tenant(args.tenant)
    except arguments.InvalidInput as exc:
        sys.stderr.write(f"authgate users: {exc}\n")
        return 2
    try:
        ended = UserFactorStore().reset(args.tenant, args.username)
    except UserNotFound:
        sys.stderr.write(f"authgate users: no user {args.username!r} in tenant {args.tenant!r}\n")
        return 1
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


def check_target(args: argparse.Namespace) -> None:
    arguments.identifier(args.tenant, "--tenant")
    arguments.text(args.username, "--username", limit=MAX_USERNAME)


ACTIONS = {"create": (check_create, create_user), "reset-mfa": (check_target, reset_mfa)}


def _run(args: argparse.Namespace) -> int:
    check, action = ACTIONS[args.users_command]
    try:
        check(args)
    except arguments.InvalidInput as exc:
        sys.stderr.write(f"authgate users: {exc}\n")
        return 2
    return target.run(args, "users", lambda: action(args))


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("users", help="manage users (create, reset-mfa)",
                                   description="Manage users of a tenant.")
    sub = parser.add_subparsers(dest="users_command", required=True, metavar="ACTION")
    create = sub.add_parser("create", help="add a user; the password is stored as scrypt")
    create.add_argument("--tenant", required=True)
    create.add_argument("--username", required=True)
    create.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    create.add_argument("--overwrite", action="store_true", help="replace an existing user's password")
    target.add_arguments(create)
    create.set_defaults(func=_run)
    reset = sub.add_parser("reset-mfa", help="remove a user's second factors and end their sessions",
                           description="Remove every second factor of a user (one-time codes, recovery codes and "
                                       "passkeys) "
                                       "and end the sessions and refresh tokens issued to them before now.")
    reset.add_argument("--tenant", required=True)
    reset.add_argument("--username", required=True)
    reset.add_argument("--json", action="store_true", help="machine-readable output")
    target.add_arguments(reset)
    reset.set_defaults(func=_run)
