"""`authgate keys rotate | list`: the signing-key lifecycle from the command line.

`rotate` runs exactly what the EventBridge schedule runs (authgate.tokens.rotation.rotate): it
only moves keys the overlap rule allows, so it is safe to run at any time, and a next key
that is not yet published long enough is reported with the time it may start signing.
Both act on the running `authgate serve` stack by default, or on a deployed stack
(`--stack-name`), through authgate_cli.admin.target.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import IO, Any

from authgate_cli.admin import target


def _when(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds)) if seconds else "-"


def _table(keys: list[Any], out: IO[str]) -> None:
    rows = [("KID", "STATE", "ALG", "BACKEND", "SIGNS FROM", "UNPUBLISHED FROM")]
    rows += [(k.kid, k.state, k.alg, k.backend, _when(k.activates_at), _when(k.retires_at)) for k in keys]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() + "\n")


def list_keys(out: IO[str] = sys.stdout, as_json: bool = False) -> int:
    """Print every key record of the current target (newest first)."""
    from authgate.stores.signing_keys import KeyStore

    keys = KeyStore().all()
    if as_json:
        out.write(json.dumps([{"kid": k.kid, "state": k.state, "alg": k.alg, "backend": k.backend,
                               "created_at": k.created_at, "activates_at": k.activates_at,
                               "retires_at": k.retires_at} for k in keys], indent=2) + "\n")
    else:
        _table(keys, out)
    return 0


def rotate_keys(out: IO[str] = sys.stdout, as_json: bool = False) -> int:
    """One lifecycle step now; says what moved and, if nothing could, why."""
    from authgate import clock
    from authgate.tokens.rotation import rotate

    report = rotate()
    if as_json:
        out.write(json.dumps(report.as_dict(), indent=2) + "\n")
        return 0
    for step in report.promotions:
        out.write(f"promoted {step['promoted']} ({step['alg']}) to current; {step['demoted'] or 'no key'} is now previous\n")
    for kid in report.created:
        out.write(f"created {kid}\n")
    for kid in report.retired:
        out.write(f"retired {kid} (every token it signed has expired)\n")
    waiting = [k for k in report.keys if k.state == "next" and k.activates_at > clock.seconds()]
    if not report.promotions and waiting:
        out.write(f"next key {waiting[0].kid} is published but may not sign before "
                  f"{_when(waiting[0].activates_at)} (JWKS max-age + leeway after publication); "
                  "run `authgate keys rotate` again after that\n")
    _table(report.keys, out)
    return 0


def _run(args: argparse.Namespace) -> int:
    command = rotate_keys if args.keys_command == "rotate" else list_keys
    return target.run(args, "keys", lambda: command(sys.stdout, as_json=args.json))


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "keys", help="signing keys (rotate, list)",
        description="Signing keys move next -> current -> previous -> retired. A key is published "
                    "(JWKS max-age + leeway) before it signs and stays published until every token it "
                    "signed has expired, so rotation never causes invalid_token.")
    sub = parser.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    for name, summary in (("rotate", "run one lifecycle step now (what the schedule runs)"),
                          ("list", "show every key with its state and times")):
        action = sub.add_parser(name, help=summary, description=summary)
        action.add_argument("--json", action="store_true", help="machine-readable output")
        target.add_arguments(action)
        action.set_defaults(func=_run)
