"""`authgate saml-keys add | retire | list | show`: the key the stack's SAML service provider signs requests with.

`add` makes one (RSA 3072, self-signed certificate: authgate.administration.saml_sp_keys); the stack's
first key signs every AuthnRequest and LogoutRequest from then on, and the SP metadata
(`<issuer>/saml/<tenant>/metadata`) publishes its certificate. A second `add` is a rotation's first
step: the new key is published beside the signing one; `retire`, once the IdPs have the new
metadata, drops the signing key and the new one signs (docs/federation.md). `list` shows each by its
certificate's SHA-256 fingerprint (`--pem`: the certificates), `show FINGERPRINT` one key and its
certificate. A private key is never printed.
All act on the running `authgate serve` stack by default, or on a deployed stack (`--stack-name`).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from authgate_cli.admin import target, text
from authgate_cli.admin.arguments import InvalidInput
from authgate_cli.admin.text import when

# Where argparse keeps the action: `<group>_command`, the name operator_audit records a change by.
ACTION = "saml-keys_command"

def _view(key: Any) -> dict[str, Any]:
    return {"fingerprint_sha256": key.fingerprint, "signs": key.signs, "created_at": key.created_at,
            "not_after": key.not_after, "certificate": key.certificate}


def list_keys(out: IO[str] = sys.stdout, as_json: bool = False, pem: bool = False) -> int:
    """Print the stack's SAML signing keys, the signing one first."""
    from authgate.administration.saml_sp_keys import listed

    found = listed()
    if as_json:
        out.write(json.dumps([_view(k) for k in found], indent=2) + "\n")
    elif pem:
        out.writelines(k.certificate for k in found)
    elif not found:
        out.write("no SAML signing key: requests go unsigned (authgate saml-keys add)\n")
    else:
        text.table(("FINGERPRINT (SHA-256)", "SIGNS", "CREATED", "NOT AFTER"),
                   ((k.fingerprint, "yes" if k.signs else "no", when(k.created_at), when(k.not_after))
                    for k in found), out)
    return 0


def show_key(fingerprint: str, out: IO[str] = sys.stdout, as_json: bool = False) -> int:
    """One key by its certificate's fingerprint; exit status 2 for one the stack does not have."""
    from authgate.administration.saml_sp_keys import found

    key = found(fingerprint)
    if key is None:
        sys.stderr.write(f"authgate saml-keys: no SAML signing key {fingerprint!r} (see `authgate saml-keys list`)\n")
        return 2
    values = {**_view(key), "created_at": when(key.created_at), "not_after": when(key.not_after)}
    if as_json:
        out.write(json.dumps(_view(key), indent=2) + "\n")
    else:
        text.record({k: v for k, v in values.items() if k != "certificate"}, out)
        out.write(key.certificate)
    return 0


def _changed(said: str, key: Any, out: IO[str], as_json: bool) -> int:
    out.write(json.dumps(_view(key), indent=2) + "\n" if as_json else said + "\n")
    return 0


def add_key(common_name: str, out: IO[str] = sys.stdout, as_json: bool = False) -> int:
    from authgate.administration.saml_sp_keys import add, added

    key = add(common_name)
    return _changed(added(key), key, out, as_json)


def retire_key(out: IO[str] = sys.stdout, as_json: bool = False) -> int:
    from authgate.administration.saml_sp_keys import retire, retired

    key = retire()
    return _changed(retired(key), key, out, as_json)


def _run(args: argparse.Namespace) -> int:
    from authgate.administration.saml_sp_keys import checked

    command = getattr(args, ACTION)
    if command == "show":
        try:
            checked(args.fingerprint)
        except InvalidInput as exc:
            sys.stderr.write(f"authgate saml-keys: {exc}\n")
            return 2

    def action() -> int:
        try:
            if command == "add":
                return add_key(target_name(args), sys.stdout, as_json=args.json)
            if command == "retire":
                return retire_key(sys.stdout, as_json=args.json)
            if command == "show":
                return show_key(args.fingerprint, sys.stdout, as_json=args.json)
        except InvalidInput as exc:
            sys.stderr.write(f"authgate saml-keys: {exc}\n")
            return 2
        return list_keys(sys.stdout, as_json=args.json, pem=args.pem)

    return target.run(args, "saml-keys", action)


def target_name(args: argparse.Namespace) -> str:
    """The certificate's common name: the stack's issuer, as the running target names it."""
    from authgate.administration.saml_sp_keys import common_name
    from authgate.settings import get_settings

    return common_name(get_settings().issuer or args.stack_name or "local")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "saml-keys", help="the SAML service provider's request-signing keys (add, retire, list, show)",
        description="The stack's SAML signing key signs every AuthnRequest and LogoutRequest, and the SP metadata "
                    "publishes its certificate. Rotate: add (published beside the signing key), let the IdPs "
                    "read the metadata again, retire (the new key signs).")
    sub = parser.add_subparsers(dest=ACTION, required=True, metavar="ACTION")
    for name, summary in (("add", "make a key: the first signs at once, a second is published beside it"),
                          ("retire", "drop the signing key: the next one signs (none left: requests go unsigned)"),
                          ("list", "the keys' certificate fingerprints, the signing one first"),
                          ("show", "one key: its fingerprint, dates and certificate")):
        action = sub.add_parser(name, help=summary, description=summary)
        if name == "show":
            action.add_argument("fingerprint", metavar="FINGERPRINT",
                                help="the certificate's SHA-256 fingerprint (authgate saml-keys list)")
        action.add_argument("--json", action="store_true", help="machine-readable output")
        if name == "list":
            action.add_argument("--pem", action="store_true", help="print the certificates (PEM)")
        target.add_arguments(action)
        action.set_defaults(func=_run)
