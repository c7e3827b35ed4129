"""`authgate check BASE_URL`: probe a live deployment and report every break of the error contract.

Importing this module is cheap (argparse only); `main` imports the probes when it runs.
Exit status: 0 clean, 1 defects found, 2 the check could not run (bad arguments, unreachable
base URL, unusable OpenAPI document, refused credentials, time budget spent).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

if TYPE_CHECKING:
    from authgate_cli.check.findings import ProbeResult
    from authgate_cli.check.probes.base import Probe

ENV_API_KEY = "AUTHGATE_CHECK_API_KEY"
ENV_CLIENT_SECRET = "AUTHGATE_CHECK_CLIENT_SECRET"
ENV_USER_TOKEN = "AUTHGATE_CHECK_USER_TOKEN"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "check", help="probe a deployment (or any API) for breaks of the error contract",
        description="Probe BASE_URL (a local stack, a deployed stage, or another API with --openapi) and "
                    "report every error response that breaks the error contract (docs/check.md). "
                    "Read-only unless --mutating. Exit 0 clean, 1 defects found, 2 could not run.")
    parser.add_argument("base_url", nargs="?", metavar="BASE_URL",
                        help="the API's base URL, e.g. http://127.0.0.1:3000 or "
                             "https://ID.execute-api.REGION.amazonaws.com/staging (the issuer)")
    parser.add_argument("--api-key", default=None, metavar="KEY",
                        help=f"x-api-key for the resource routes (default ${ENV_API_KEY}); without it the "
                             "bearer probes are skipped")
    parser.add_argument("--resource", default="/charges", metavar="PATH",
                        help="the bearer-protected route behind the API key (default /charges)")
    parser.add_argument("--audience", default=None, metavar="AUD",
                        help="aud of the tokens the bearer probes forge (default ISSUER/charges)")
    mutating = parser.add_argument_group("state-changing probes (off unless --mutating)")
    mutating.add_argument("--mutating", action="store_true",
                          help="also issue tokens, create one charge and replay it, and burst until a 429 "
                               "(says what it will create before it starts)")
    mutating.add_argument("--client-id", default=None, metavar="ID", help="a confidential client_credentials client")
    mutating.add_argument("--client-secret", default=None, metavar="SECRET",
                          help=f"its secret (default ${ENV_CLIENT_SECRET}, which keeps it out of shell history)")
    mutating.add_argument("--scope", default="charges:read charges:write", help="scopes of the main token")
    mutating.add_argument("--read-scope", default="charges:read", help="a scope that may not create (403 probe)")
    mutating.add_argument("--currency", default="usd", help="currency of the one charge created (default usd)")
    mutating.add_argument("--amount", type=int, default=100, help="its amount in minor units (default 100)")
    mutating.add_argument("--user-token", default=None, metavar="TOKEN",
                          help=f"a user's access token from a password-only sign-in (default ${ENV_USER_TOKEN}); with "
                               "--sca-amount, a charge of that amount must be refused with the RFC 9470 challenge")
    mutating.add_argument("--sca-amount", type=int, default=None, metavar="AMOUNT",
                          help="a charge amount at or above the tenant's --sca-threshold (minor units)")
    mutating.add_argument("--burst", type=int, default=100, metavar="N",
                          help="at most N requests in the rate-limit burst (default 100)")
    mutating.add_argument("--burst-seconds", type=float, default=30.0, metavar="S",
                          help="at most S seconds of burst (default 30)")
    other = parser.add_argument_group("any API")
    other.add_argument("--openapi", default=None, metavar="URL|FILE",
                       help="build negative requests from this OpenAPI 3 document instead of authgate's probes")
    other.add_argument("--header", action="append", default=[], metavar="'NAME: VALUE'",
                       help="a header (credentials) sent with the OpenAPI probes that need them; repeatable; "
                            "values are never printed")
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print the report as JSON (schema authgate-check/1)")
    output.add_argument("--junit", type=Path, default=None, metavar="FILE", help="also write JUnit XML to FILE")
    output.add_argument("--quiet", action="store_true", help="no progress on stderr")
    output.add_argument("--list", action="store_true", help="list the probes and the rules they check, then exit")
    limits = parser.add_argument_group("limits")
    limits.add_argument("--timeout", type=float, default=10.0, metavar="S", help="per request (default 10 s)")
    limits.add_argument("--max-time", type=float, default=120.0, metavar="S",
                        help="for the whole run (default 120 s); a run cut short exits 2")
    parser.set_defaults(func=main)
    parser.error = _usage_error  # type: ignore[method-assign]


def _usage_error(message: str) -> NoReturn:
    """A bad option is one line on stderr and exit 2, like every other reason the check cannot run."""
    print(f"authgate check: {message} (see authgate check --help)", file=sys.stderr)
    sys.exit(2)


class _Progress:
    """One updating line on a terminal; one line per finished probe otherwise (stderr)."""

    def __init__(self, stream: TextIO, quiet: bool) -> None:
        self.stream = stream
        self.quiet = quiet
        self.tty = stream.isatty()

    def __call__(self, index: int, total: int, probe: Probe, result: ProbeResult | None) -> None:
        if self.quiet:
            return
        counter = f"[{index:>{len(str(total))}}/{total}]"
        if self.tty:
            if result is None:
                self.stream.write(f"\r\x1b[K{counter} {probe.name} …")
            elif index == total:
                self.stream.write("\r\x1b[K")
        elif result is not None:
            self.stream.write(f"{counter} {probe.name}: {result.outcome}\n")
        self.stream.flush()


def _fail(message: str) -> int:
    print(f"authgate check: {message}", file=sys.stderr)
    return 2


def _headers(raw: list[str]) -> tuple[tuple[str, str], ...] | str:
    parsed = []
    for item in raw:
        name, sep, value = item.partition(":")
        if not sep or not name.strip() or any(c in name for c in " \t\r\n") or any(c in value for c in "\r\n"):
            return f"--header wants 'NAME: VALUE', got {item!r}"
        parsed.append((name.strip(), value.strip()))
    return tuple(parsed)


def _list(probes: list[Probe]) -> int:
    from authgate_cli.check.rules import RULES

    for probe in probes:
        print(f"{probe.name}\n    {probe.title}\n    rules: {', '.join(r for r in probe.rules if r in RULES)}")
    return 0


def main(args: argparse.Namespace) -> int:
    from authgate_cli.check import probes as suites
    from authgate_cli.check.probes.base import CannotRun, Context, Options
    from authgate_cli.check.probes.mutating import credentials, plan
    from authgate_cli.check.report import document, junit, text
    from authgate_cli.check.runner import run
    from authgate_cli.check.transport import Budget, Client, InvalidBaseUrl, base_url_of

    headers = _headers(args.header)
    if isinstance(headers, str):
        return _fail(headers)
    options = Options(
        api_key=args.api_key or os.environ.get(ENV_API_KEY) or None, client_id=args.client_id,
        client_secret=args.client_secret or os.environ.get(ENV_CLIENT_SECRET) or None, mutating=args.mutating,
        resource="/" + args.resource.lstrip("/"), scope=args.scope, read_scope=args.read_scope,
        audience=args.audience, currency=args.currency, amount=args.amount, burst=args.burst,
        burst_seconds=args.burst_seconds, user_headers=headers,
        user_token=args.user_token or os.environ.get(ENV_USER_TOKEN) or None, sca_amount=args.sca_amount)
    if args.list and args.openapi is None:
        return _list(suites.authgate_suite(options, "RUNID"))
    if not args.base_url:
        return _fail("give the BASE_URL to check (e.g. http://127.0.0.1:3000)")
    try:
        base_url = base_url_of(args.base_url)
    except InvalidBaseUrl as exc:
        return _fail(str(exc))
    if args.timeout <= 0 or args.max_time <= 0 or args.burst < 1 or args.burst_seconds <= 0 or args.amount < 1 \
            or (args.sca_amount is not None and args.sca_amount < 1):
        return _fail("--timeout, --max-time, --burst, --burst-seconds, --amount and --sca-amount must be positive")
    if options.mutating:
        if args.openapi:
            return _fail("--mutating runs authgate's probes; it cannot be combined with --openapi")
        missing = [flag for flag, value in (("--client-id", options.client_id), ("--client-secret", options.client_secret),
                                            ("--api-key", options.api_key)) if not value]
        if missing:
            return _fail(f"--mutating needs {', '.join(missing)}")
    client = Client(timeout=args.timeout, budget=Budget(args.max_time))
    ctx = Context(base_url, client, options)
    try:
        if args.openapi:
            from authgate_cli.check.openapi_document import load

            probes = suites.openapi_suite(load(args.openapi, client), options, ctx.run_id)
            if args.list:
                return _list(probes)
        else:
            probes = suites.authgate_suite(options, ctx.run_id)
        if options.mutating:
            credentials(ctx)  # refused credentials: one line, before the plan and any progress
        if options.mutating and not args.quiet:
            print(f"authgate check: --mutating will, on {base_url}:", file=sys.stderr)
            for line in plan(options, base_url, ctx.run_id):
                print(f"  - {line}", file=sys.stderr)
        mode = {"mutating": options.mutating, "openapi": args.openapi, "api_key": options.api_key is not None,
                "user_headers": sorted({name.lower() for name, _ in headers})}
        outcome = run(ctx, probes, mode, _Progress(sys.stderr, args.quiet))
    except CannotRun as exc:
        return _fail(str(exc))
    sys.stdout.write(document.render(outcome) if args.json else text.render(outcome))
    if args.junit is not None:
        try:
            args.junit.write_text(junit.render(outcome), encoding="utf-8")
        except OSError as exc:
            return _fail(f"cannot write {args.junit}: {exc.strerror or exc}")
    if outcome.stopped and not args.quiet:
        print(f"authgate check: {outcome.stopped}", file=sys.stderr)
    return outcome.exit_code
