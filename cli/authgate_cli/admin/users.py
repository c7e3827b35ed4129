"""`authgate users create`: add a user (password stored as scrypt only) to a tenant.

The password is read from --password-stdin or prompted for, never taken as an argument that
would land in shell history. Acts on the running local stack or a deployed one (`--stack-name`).
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import IO, Any

from authgate_cli.admin import target


def create_user(args: argparse.Namespace, out: IO[str] = sys.stdout, stdin: IO[str] | None = None) -> int:
    from authgate.stores.exceptions import UserExists
    from authgate.stores.users import UserStore

    if args.password_stdin:
        password = (stdin or sys.stdin).readline().rstrip("\r\n")
    else:
        password = getpass.getpass(f"password for {args.username}: ")
    if len(password) < 8:
        sys.stderr.write("authgate users: the password must have at least 8 characters\n")
        return 2
    try:
        UserStore().create(args.tenant, args.username, password, overwrite=args.overwrite)
    except UserExists:
        sys.stderr.write(f"authgate users: user {args.username!r} already exists in tenant {args.tenant!r} "
                         "(use --overwrite to reset the password)\n")
        return 1
    out.write(f"user {args.username} created in tenant {args.tenant}\n")
    return 0


def _run(args: argparse.Namespace) -> int:
    return target.run(args, "users", lambda: create_user(args))


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("users", help="manage users (create)", description="Manage users of a tenant.")
    sub = parser.add_subparsers(dest="users_command", required=True, metavar="ACTION")
    create = sub.add_parser("create", help="add a user; the password is stored as scrypt")
    create.add_argument("--tenant", required=True)
    create.add_argument("--username", required=True)
    create.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    create.add_argument("--overwrite", action="store_true", help="replace an existing user's password")
    target.add_arguments(create)
    create.set_defaults(func=_run)
