"""The `authgate` command: `serve` (local API), `invoke` (one handler, one event), `check` (the
error-contract checker), admin groups.

Importing this module is cheap (argparse only): each subcommand imports what it needs when it
runs, and an admin group's module is imported only when that group is the command.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

# (command, module exposing `register(subparsers)`, summary in --help).
ADMIN_GROUPS = (
    ("clients", "authgate_cli.admin.clients", "manage OAuth clients"),
    ("users", "authgate_cli.admin.users", "manage users"),
    ("keys", "authgate_cli.admin.keys", "signing keys (rotate, list, show)"),
    ("saml-keys", "authgate_cli.admin.saml_keys", "the SAML service provider's request-signing keys (add, retire, list, show)"),
    ("tenants", "authgate_cli.admin.tenants", "manage tenants (create, list, show)"),
    ("resources", "authgate_cli.admin.resources", "protected resources (create, list, show, update, delete)"),
    ("idps", "authgate_cli.admin.idps", "trusted identity providers for ID-JAGs (create, list, show, update, delete)"),
    ("operators", "authgate_cli.admin.operators", "the console's operators and their roles (grant, revoke, list, show)"),
    ("events", "authgate_cli.admin.events", "the audit trail (list, tail, verify)"),
)


def _serve(args: argparse.Namespace) -> int:
    from authgate_cli.local.listeners import Timeouts
    from authgate_cli.local.serve import ServeOptions, default_callback_port, default_port, serve

    callback = default_callback_port() if args.callback_port is None else args.callback_port
    return serve(ServeOptions(
        host=args.host, port=args.port if args.port is not None else default_port(),
        callback_port=None if callback in (None, "off") else int(callback), seed=args.seed,
        dynamodb_endpoint=args.dynamodb_endpoint, data_dir=args.data,
        timeouts=Timeouts(idle=args.idle_timeout, read=args.read_timeout),
        allow_loopback_outbound=args.allow_loopback_outbound))


def _callback_port(raw: str) -> int | str:
    if raw == "off":
        return raw
    if not raw.isdigit() or int(raw) > 65535:
        raise argparse.ArgumentTypeError(f"a port number, 0 (any free port) or off; got {raw!r}")
    return int(raw)


def _seconds(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {raw!r}") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"must be between 0 and 3600 seconds, got {raw}")
    return value


def _invoke(args: argparse.Namespace) -> int:
    from authgate_cli.local.invoke import main

    return main(args.function, args.event, seed=args.seed)


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="authgate",
        description="authgate: OAuth 2.0 authorization server and charges API. "
                    "Run it locally, invoke one handler, or administer a stack.")
    from authgate_cli import version_line

    parser.add_argument("--version", action="version", version=version_line(),
                        help="print the versions of authgate-cli, the authgate runtime and Python")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser("serve", help="run the API locally (API Gateway emulator, in-process AWS)",
                           description="Serve the API on http://127.0.0.1:PORT with moto's AWS inside "
                                       "the process and the demo seed loaded.")
    serve.add_argument("--port", type=int, default=None,
                       help="port to listen on (default: $PORT, else 3000; 0 picks a free one)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--allow-loopback-outbound", "--allow-loopback-client-metadata", action="store_true",
                       help="let every request to a URL someone else chose reach https on 127.0.0.1 or ::1, "
                            "trusting the CA bundle named by SSL_CERT_FILE: client metadata documents, "
                            "back-channel logout, approval webhooks, IdP keys (docs/local.md; "
                            "--allow-loopback-client-metadata is its old name, kept as an alias)")
    serve.add_argument("--callback-port", type=_callback_port, default=None, metavar="PORT",
                       help="port of the demo app on the demo clients' redirect URIs (default: $CALLBACK_PORT, "
                            "else 8765; 0 picks a free one and the redirect URIs follow; off: no demo app)")
    serve.add_argument("--seed", type=Path, default=None, metavar="FILE",
                       help="seed file to load instead of the demo seed (format: docs/local.md, 'The seed file')")
    serve.add_argument("--data", type=Path, default=None, metavar="DIR",
                       help="keep tables, keys, clients and users in DIR across restarts (default: in memory, "
                            "forgotten on stop)")
    serve.add_argument("--dynamodb-endpoint", default=None, metavar="URL",
                       help="use this DynamoDB-compatible endpoint instead of the embedded moto")
    serve.add_argument("--idle-timeout", type=_seconds, default=30.0, metavar="SECONDS",
                       help="close a connection that sends no complete request head for this long (default 30)")
    serve.add_argument("--read-timeout", type=_seconds, default=30.0, metavar="SECONDS",
                       help="close a connection whose request body stalls for this long (default 30)")
    serve.set_defaults(func=_serve)

    invoke = sub.add_parser("invoke", help="run one function's handler on one event file (no Docker)",
                            description="Like `sam local invoke`: run FUNCTION's handler on EVENT.json "
                                        "against an in-process moto with the demo seed; print the result.")
    invoke.add_argument("function", metavar="FUNCTION", help="authorize, token, jwks, charges or rotate_keys")
    invoke.add_argument("event", type=Path, metavar="EVENT.json", help="an API Gateway event file (see events/)")
    invoke.add_argument("--seed", type=Path, default=None, metavar="FILE", help="seed file (default: demo seed)")
    invoke.set_defaults(func=_invoke)

    from authgate_cli.check.command import register as register_check

    register_check(sub)

    wanted = next((a for a in argv if not a.startswith("-")), None)
    for name, module, summary in ADMIN_GROUPS:
        if name == wanted:
            importlib.import_module(module).register(sub)
        else:
            # Listed in --help without importing the group (and its AWS dependencies).
            sub.add_parser(name, help=summary, add_help=False)
    return parser


def chosen_parser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the deepest subcommand the command line names (`authgate clients create`)."""
    return _chosen(parser, args)[0]


def _chosen(parser: argparse.ArgumentParser,
            args: argparse.Namespace) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """That parser, and its siblings by name (`create`, `update`, ... of `authgate clients`)."""
    siblings: dict[str, argparse.ArgumentParser] = {}
    while True:
        sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        name = getattr(args, sub.dest, None) if sub is not None else None
        if sub is None or name not in sub.choices:
            return parser, siblings
        parser, siblings = sub.choices[name], dict(sub.choices)


def _options(parser: argparse.ArgumentParser) -> list[str]:
    return [o for a in parser._actions for o in a.option_strings if o not in ("-h", "--help")]


def unrecognized(parser: argparse.ArgumentParser, args: argparse.Namespace, unknown: Sequence[str]) -> str:
    """argparse's error for options the subcommand does not take; when another subcommand of the same noun takes
    one (`clients update --tenant`: only `create` does), which one does, and what this one takes."""
    chosen, siblings = _chosen(parser, args)
    message = f"unrecognized arguments: {' '.join(unknown)}"
    for flag in (a.split("=", 1)[0] for a in unknown if a.startswith("--")):
        takers = [p.prog.removeprefix(f"{parser.prog} ") for p in siblings.values()
                  if p is not chosen and flag in _options(p)]
        if takers:
            verb = chosen.prog.rsplit(" ", 1)[-1]
            return (f"{message} ({' and '.join(f'`{t}`' for t in takers)} {'takes' if len(takers) == 1 else 'take'} "
                    f"{flag}; {verb} takes {', '.join(_options(chosen))})")
    return message


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        # argparse reports an unknown option with the top-level usage; the subcommand's says what it takes.
        chosen_parser(parser, args).error(unrecognized(parser, args, unknown))
    from authgate_cli.admin.target import TargetError

    try:
        return int(args.func(args) or 0)
    except TargetError as exc:
        print(f"authgate {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`authgate check --list | head`): not an error of ours. Point
        # stdout at /dev/null so the interpreter's final flush cannot raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
