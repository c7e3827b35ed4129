"""What `authgate users` accepts: tenants, usernames, profiles, and a password from stdin or a prompt."""

from __future__ import annotations

import argparse
import getpass
import sys
import unicodedata
from typing import IO

from authgate_cli.admin import arguments

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


def check_idp(value: str) -> None:
    """--idp: an identity provider's id or issuer, as stored (printable ASCII without spaces)."""
    from authgate.users.linked_identities import MAX_ISSUER

    arguments.identifier(value, "--idp", limit=MAX_ISSUER)


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
