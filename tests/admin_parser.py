"""The admin subcommands as the `authgate` parser itself has them, and the command lines that call them.

Read from build_parser's own subparsers, never from a list kept by hand: a subcommand registered
tomorrow is walked by every test that uses this (tests/unit/admin/test_every_command.py,
tests/deploy/test_admin_without_aws.py), which fail until the names it takes have values there.
"""

from __future__ import annotations

import argparse
from typing import Any

# What a subcommand's usual call needs besides its required arguments to pass its own checks.
EXTRA = {
    ("clients", "create"): ["--grant", "client_credentials", "--scope", "charges:read"],
    ("clients", "update"): ["--name", "Renamed"],
    ("users", "create"): ["--password-stdin"],
    ("users", "update"): ["--name", "Renamed"],
    ("users", "reset-password"): ["--password-stdin"],
    ("tenants", "create"): ["--currency", "usd"],
    ("tenants", "update"): ["--name", "Renamed"],
    ("resources", "update"): ["--name", "Renamed"],
    ("idps", "create"): ["--issuer", "https://new-idp.example", "--jwks-uri", "https://idp.example/keys"],
    ("idps", "update"): ["--user-match", "email"],
    ("operators", "grant"): ["--tenant", "demo"],
    ("operators", "revoke"): ["--tenant", "demo"],
}


def subparsers(parser: argparse.ArgumentParser) -> Any:
    """The parser's subcommands (an argparse._SubParsersAction), or None."""
    return next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)


def parser_of(noun: str, verb: str | None = None) -> argparse.ArgumentParser:
    """The parser of `authgate NOUN [VERB]` (the noun's module registered, as `authgate NOUN ...` does)."""
    from authgate_cli.main import build_parser

    group = subparsers(build_parser([noun])).choices[noun]
    return group if verb is None else subparsers(group).choices[verb]


def admin_commands() -> list[tuple[str, str]]:
    """Every (noun, verb) of the parser whose subcommand acts on a stack (takes --stack-name)."""
    from authgate_cli.main import build_parser

    found = []
    for noun in subparsers(build_parser()).choices:
        verbs = subparsers(parser_of(noun))
        for verb, parser in (verbs.choices.items() if verbs is not None else ()):
            if any("--stack-name" in a.option_strings for a in parser._actions):
                found.append((noun, verb))
    return found


def required(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.required]


def command_line(noun: str, verb: str, values: dict[str, str], extra: list[str] | None = None,
                 leave_out: str | None = None) -> list[str]:
    """`NOUN VERB` with each required argument (but `leave_out`) from `values` by its dest, then `extra` (by
    default the usual call's EXTRA). A KeyError names a required argument `values` has no value for."""
    argv = [noun, verb]
    for action in required(parser_of(noun, verb)):
        if action.dest != leave_out:
            value = values[action.dest]
            argv += [value] if not action.option_strings else [action.option_strings[0], value]
    return argv + (EXTRA.get((noun, verb), []) if extra is None else extra)
