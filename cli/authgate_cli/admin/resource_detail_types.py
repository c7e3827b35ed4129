"""A resource's own authorization_details types (RFC 9396 2): `--authorization-details-type NAME --schema FILE`."""

from __future__ import annotations

import argparse

from authgate.administration import resources as checks
from authgate_cli.admin import arguments

type_name = checks.type_name  # checked before a stack is looked up


def detail_type(args: argparse.Namespace) -> tuple[str, str] | None:
    """--authorization-details-type NAME --schema FILE: the type's name and its schema as compact JSON (RFC 9396 2),
    or None; InvalidInput when either is wrong (a schema must be a valid JSON Schema, Draft 2020-12)."""
    name, path = getattr(args, "authorization_details_type", None), getattr(args, "schema", None)
    if name is None and path is None:
        return None
    if name is None or path is None:
        raise arguments.InvalidInput("--authorization-details-type and --schema go together")
    type_name(name)
    from authgate.authorization_details.registered import MAX_SCHEMA

    try:
        with open(path, encoding="utf-8") as f:
            raw = f.read(MAX_SCHEMA * 4 + 1)
    except OSError as exc:
        raise arguments.InvalidInput(f"--schema {path!r}: {exc.strerror or exc}") from None
    return checks.detail_type(name, raw, f"--schema {path!r}")
