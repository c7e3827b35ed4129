"""`authgate keys rotate | list | show`: the signing-key lifecycle from the command line.

`rotate` runs exactly what the EventBridge schedule runs (authgate.tokens.rotation.rotate; on a deployed
stack the stack's rotation function runs it, as for the console): it
only moves keys the overlap rule allows, so it is safe to run at any time, and a next key
that is not yet published long enough is reported with the time it may start signing. `show KID`
prints one key's record and its public JWK (never where its private half is kept). Each is the
operation the console's keys pages take too (authgate.administration.signing_keys).
All act on the running `authgate serve` stack by default, or on a deployed stack
(`--stack-name`), through authgate_cli.admin.target.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from authgate_cli.admin import arguments, target, text, unknown
from authgate_cli.admin.text import when


def _table(keys: list[Any], out: IO[str]) -> None:
    text.table(("KID", "STATE", "ALG", "BACKEND", "SIGNS FROM", "UNPUBLISHED FROM"),
               ((k.kid, k.state, k.alg, k.backend, when(k.activates_at), when(k.retires_at)) for k in keys), out)


def _view(key: Any) -> dict[str, Any]:
    return {"kid": key.kid, "state": key.state, "alg": key.alg, "backend": key.backend, "created_at": key.created_at,
            "activates_at": key.activates_at, "retires_at": key.retires_at}


def list_keys(out: IO[str] = sys.stdout, as_json: bool = False) -> int:
    """Print every key record of the current target (newest first)."""
    from authgate.administration.signing_keys import keys

    found = keys()
    if as_json:
        out.write(json.dumps([_view(k) for k in found], indent=2) + "\n")
    else:
        _table(found, out)
    return 0


def show_key(kid: str, out: IO[str] = sys.stdout, as_json: bool = False) -> int:
    """One key's record and its public JWK (RFC 7517 4); exit status 2 for a kid the stack does not have."""
    from authgate.administration.signing_keys import key as found

    key = found(kid)
    if key is None:
        sys.stderr.write(f"authgate keys: {unknown.signing_key(kid)}\n")
        return 2
    values = {**_view(key), "expires_at": key.expires_at, "public_jwk": json.loads(key.public_jwk or "null")}
    if as_json:
        out.write(json.dumps(values, indent=2) + "\n")
    else:
        text.record({**values, "public_jwk": json.dumps(values["public_jwk"], separators=(",", ":"))}, out)
    return 0


def rotate_keys(out: IO[str] = sys.stdout, as_json: bool = False) -> int:
    """One lifecycle step now; says what moved and, if nothing could, why (the console's rotation too).

    On a deployed stack the stack's rotation function runs the step, as for the console: its environment names the
    roles a new KMS key's own policy must name (a key made here, with the engineer's credentials, would name none,
    and the token function could not sign with it); the local stack's step runs in this process."""
    from authgate.administration.signing_keys import rotate_by_function, rotate_now
    from authgate.settings import get_settings
    from authgate.tokens.rotation_request import RotationUnanswered

    try:
        report, said = rotate_now() if get_settings().stage == "local" else rotate_by_function()
    except RotationUnanswered as exc:
        sys.stderr.write(f"authgate keys: the rotation function did not answer ({exc}); see `authgate keys list`, and "
                         "run the step again if it is still needed\n")
        return 2
    if as_json:
        out.write(json.dumps(report.as_dict(), indent=2) + "\n")
        return 0
    out.writelines(line + "\n" for line in said)
    _table(report.keys, out)
    return 0


def _run(args: argparse.Namespace) -> int:
    if args.keys_command == "show":
        try:
            arguments.identifier(args.kid, "KID")
        except arguments.InvalidInput as exc:
            sys.stderr.write(f"authgate keys: {exc}\n")
            return 2
        return target.run(args, "keys", lambda: show_key(args.kid, sys.stdout, as_json=args.json))
    command = rotate_keys if args.keys_command == "rotate" else list_keys
    return target.run(args, "keys", lambda: command(sys.stdout, as_json=args.json))


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "keys", help="signing keys (rotate, list, show)",
        description="Signing keys move next -> current -> previous -> retired. A key is published "
                    "(JWKS max-age + leeway) before it signs and stays published until every token it "
                    "signed has expired, so rotation never causes invalid_token.")
    sub = parser.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    for name, summary in (("rotate", "run one lifecycle step now (what the schedule runs)"),
                          ("list", "show every key with its state and times"),
                          ("show", "one key: its state, times and public JWK")):
        action = sub.add_parser(name, help=summary, description=summary)
        if name == "show":
            action.add_argument("kid", metavar="KID", help="the key's id (authgate keys list)")
        action.add_argument("--json", action="store_true", help="machine-readable output")
        target.add_arguments(action)
        action.set_defaults(func=_run)
