"""A registered resource's own authorization details types (RFC 9396 2), each checked by a JSON Schema.

`authgate resources update RESOURCE --authorization-details-type NAME --schema FILE` stores the
schema (`check_schema`: a valid Draft 2020-12 schema of at most MAX_SCHEMA characters); an
authorization request's object of that type must validate against it (`validated`). jsonschema
is imported only here, on the first request that names a registered type: a cold start that never
sees one does not pay for it (measured: docs/payments-consent.md). A schema's `$ref` is resolved
within the schema only: the library retrieves nothing over the network.
"""

from __future__ import annotations

import json
from typing import Any

from authgate.authorization_details.errors import DetailsInvalid, SchemaInvalid

MAX_SCHEMA = 16384
# How much of an object the consent page shows.
MAX_SHOWN_FIELDS = 8
MAX_SHOWN_VALUE = 80


def check_schema(schema: Any) -> None:
    """SchemaInvalid unless `schema` is a JSON object that is a valid Draft 2020-12 schema, at most MAX_SCHEMA long."""
    # Function-level import: jsonschema and its referencing registry take tens of milliseconds to import
    # (docs/payments-consent.md); only this path needs them.
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    if not isinstance(schema, dict):
        raise SchemaInvalid("The schema must be a JSON object (a JSON Schema, Draft 2020-12).")
    if len(json.dumps(schema, separators=(",", ":"))) > MAX_SCHEMA:
        raise SchemaInvalid(f"The schema is longer than {MAX_SCHEMA} characters.")
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise SchemaInvalid(f"The schema is not a valid Draft 2020-12 schema: {exc.message[:200]}") from None


def validated(entry: dict[str, Any], where: str, schema: Any) -> dict[str, Any]:
    """The object, if its type's schema accepts it; DetailsInvalid naming the first failing member otherwise."""
    # Function-level import: see check_schema.
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(schema).iter_errors(entry), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first.absolute_path)
        raise DetailsInvalid(f"{where}{path} does not match the schema of type {entry['type'][:64]!r}: "
                             f"{first.message[:200]}")
    return entry


def _shown(value: Any) -> str:
    if isinstance(value, list):
        text = ", ".join(_shown(v) for v in value)
    elif isinstance(value, dict):
        text = ", ".join(f"{k}: {_shown(v)}" for k, v in value.items())
    else:
        text = str(value).lower() if isinstance(value, bool) else str(value)
    return text if len(text) <= MAX_SHOWN_VALUE else text[:MAX_SHOWN_VALUE - 1] + "…"


def describe(entry: dict[str, Any]) -> str:
    """A summary of the object's fields in words (its type, then name: value pairs), never raw JSON."""
    fields = [f"{name}: {_shown(value)}" for name, value in entry.items() if name != "type"]
    shown = fields[:MAX_SHOWN_FIELDS] + (["…"] if len(fields) > MAX_SHOWN_FIELDS else [])
    return f"{entry['type']}" + (f" — {'; '.join(shown)}" if shown else "")
