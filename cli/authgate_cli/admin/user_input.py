"""What `authgate users` accepts: tenants, usernames, profiles, and a password from stdin or a prompt.

The checks themselves are the runtime's authgate.people.profile, which the console's forms ask too."""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import IO

from authgate.people import profile
from authgate_cli.admin import arguments

MAX_USERNAME = profile.MAX_USERNAME  # `authgate operators` names people too


def check_create(args: argparse.Namespace, stdin: IO[str] | None = None) -> None:
    """Refuse bad arguments, and a prompt nobody can answer, before any stack is looked up."""
    check_user(args)
    check_profile(args)
    check_password_source(args, stdin)


def check_user(args: argparse.Namespace) -> None:
    profile.person(args.tenant, args.username)


def check_idp(value: str) -> None:
    """--idp: an identity provider's id or issuer, as stored (printable ASCII without spaces)."""
    from authgate.users.linked_identities import MAX_ISSUER

    arguments.identifier(value, "--idp", limit=MAX_ISSUER)


def check_profile(args: argparse.Namespace) -> None:
    profile.profile(getattr(args, "name", None), getattr(args, "email", None), getattr(args, "email_verified", None),
                    creating=args.users_command == "create")


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
    profile.new_password(password, args.username)
    return password
