"""A resource's own authorization_details types (RFC 9396 2): `--authorization-details-type NAME --schema FILE`."""

from __future__ import annotations

import argparse
import json
from typing import Any

from authgate_cli.admin import arguments


def detail_type(args: argparse.Namespace) -> tuple[str, str] | None:
    """--authorization-details-type NAME --schema FILE: the type's name and its schema as compact JSON (RFC 9396 2),
    or None; InvalidInput when either is wrong (a schema must be a valid JSON Schema, Draft 2020-12)."""
    name, path = getattr(args, "authorization_details_type", None), getattr(args, "schema", None)
    if name is None and path is None:
        return None
    if name is None or path is None:
        raise arguments.InvalidInput("--authorization-details-type and --schema go together")
    type_name(name)
    from authgate import strict_json
    from authgate.authorization_details.errors import SchemaInvalid
    from authgate.authorization_details.registered import MAX_SCHEMA, check_schema

    try:
        with open(path, encoding="utf-8") as f:
            raw = f.read(MAX_SCHEMA * 4 + 1)
    except OSError as exc:
        raise arguments.InvalidInput(f"--schema {path!r}: {exc.strerror or exc}") from None
    try:
        schema = strict_json.loads(raw)
        check_schema(schema)
    except SchemaInvalid as exc:
        raise arguments.InvalidInput(f"--schema {path!r}: {exc}") from None
    except ValueError as exc:
        raise arguments.InvalidInput(f"--schema {path!r} is not JSON: {exc}") from None
    return name, json.dumps(schema, separators=(",", ":"), sort_keys=True)


def type_name(name: str) -> str:
    from authgate.authorization_details.charge import TYPE
    from authgate.authorization_details.model import TYPE_NAME

    if not TYPE_NAME.fullmatch(name):
        raise arguments.InvalidInput(f"authorization details type {name[:64]!r} must be 1-128 visible characters "
                                     "without spaces")
    if name == TYPE:
        raise arguments.InvalidInput(f"{TYPE!r} is the charges API's own type; name this resource's type otherwise")
    return name


def detail_types(resource: Any, args: argparse.Namespace) -> tuple[tuple[str, str], ...]:
    """The resource's types after --authorization-details-type/--schema and --remove-authorization-details-type."""
    types = dict(resource.authorization_details_types)
    added = detail_type(args)
    if added is not None:
        types[added[0]] = added[1]
    removed = getattr(args, "remove_authorization_details_type", None)
    if removed is not None:
        if removed not in types:
            raise arguments.InvalidInput(f"the resource has no authorization details type {removed[:64]!r}")
        del types[removed]
    return tuple(sorted(types.items()))
