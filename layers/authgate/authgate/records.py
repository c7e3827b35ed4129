"""One field table per record: DynamoDB attribute values (low-level client shapes) and the public view.

A record's `Field`s name its attributes, their kind and what a missing attribute reads as; the
marshaller below is the only place that spells `{"S": ...}` for such a record. Table-driven on
purpose: botocore's TypeSerializer would cost the handlers' cold start (boto3.dynamodb.types).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, NamedTuple

# MAP: a DynamoDB map whose values are strings or lists of strings, held as sorted (key, value)
# pairs (values: str, or a tuple of str), so a record stays an immutable, comparable tuple.
Kind = Literal["S", "N", "BOOL", "STRINGS", "KEYS", "MAP"]
Item = dict[str, Any]


class Field(NamedTuple):
    """One attribute of a record: its name, kind, value when absent, and whether it is written/shown."""

    name: str
    kind: Kind
    missing: Any = None
    # Write the attribute only when the value is truthy (optional attributes added over time).
    omit_empty: bool = False
    # Part of the record's public view (secrets and hashes are not).
    public: bool = True


def s(value: str) -> dict[str, str]:
    """A string attribute value (keys and expression values)."""
    return {"S": value}


def n(value: int) -> dict[str, str]:
    """A number attribute value (keys and expression values)."""
    return {"N": str(value)}


def _dump_keys(value: Iterable[dict[str, Any]]) -> dict[str, str]:
    # A JWK Set (RFC 7517 5) stored as compact JSON.
    return {"S": json.dumps({"keys": list(value)}, separators=(",", ":"))}


def _load_strings(attr: Mapping[str, Any]) -> tuple[str, ...]:
    if "L" in attr:
        return tuple(v["S"] for v in attr["L"] if "S" in v)
    return tuple(sorted(attr.get("SS", ())))


def _load_keys(attr: Mapping[str, Any]) -> tuple[dict[str, Any], ...]:
    if "S" not in attr:
        return ()
    keys = json.loads(attr["S"]).get("keys", [])
    return tuple(k for k in keys if isinstance(k, dict))


def _dump_map(value: Iterable[tuple[str, str | Iterable[str]]]) -> dict[str, Any]:
    return {"M": {k: {"S": v} if isinstance(v, str) else {"L": [{"S": x} for x in v]} for k, v in value}}


def _load_map(attr: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    pairs: list[tuple[str, Any]] = []
    for k, v in attr.get("M", {}).items():
        if "S" in v:
            pairs.append((k, v["S"]))
        elif "L" in v:
            pairs.append((k, tuple(x["S"] for x in v["L"] if "S" in x)))
    return tuple(sorted(pairs))


_DUMP: dict[Kind, Callable[[Any], dict[str, Any]]] = {
    "S": lambda v: {"S": v},
    "N": lambda v: {"N": str(v)},
    "BOOL": lambda v: {"BOOL": bool(v)},
    "STRINGS": lambda v: {"L": [{"S": x} for x in v]},
    "KEYS": _dump_keys,
    "MAP": _dump_map,
}
_LOAD: dict[Kind, Callable[[Mapping[str, Any], Any], Any]] = {
    "S": lambda a, missing: a.get("S", missing),
    "N": lambda a, missing: int(a["N"]) if "N" in a else missing,
    "BOOL": lambda a, missing: bool(a.get("BOOL", missing)),
    "STRINGS": lambda a, missing: _load_strings(a),
    "KEYS": lambda a, missing: _load_keys(a),
    "MAP": lambda a, missing: _load_map(a),
}
_VIEW: dict[Kind, Callable[[Any], Any]] = {
    "STRINGS": list,
    "KEYS": lambda v: {"keys": list(v)},
    "MAP": lambda v: {k: x if isinstance(x, str) else list(x) for k, x in v},
}


def to_item(fields: Iterable[Field], values: Mapping[str, Any]) -> Item:
    """The DynamoDB item of a record (`values` by field name, e.g. a NamedTuple's `_asdict()`)."""
    item: Item = {}
    for f in fields:
        value = values[f.name]
        if f.omit_empty and not value:
            continue
        item[f.name] = _DUMP[f.kind](value)
    return item


def from_item(fields: Iterable[Field], item: Mapping[str, Any]) -> dict[str, Any]:
    """A record's values by field name from a DynamoDB item; an absent attribute reads as `missing`."""
    values: dict[str, Any] = {}
    for f in fields:
        attr = item.get(f.name)
        values[f.name] = f.missing if attr is None else _LOAD[f.kind](attr, f.missing)
    return values


def public_view(fields: Iterable[Field], values: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON-ready view of a record: its public fields, lists for tuples, a JWK Set for keys."""
    return {f.name: _VIEW.get(f.kind, _same)(values[f.name]) for f in fields if f.public}


def _same(value: Any) -> Any:
    return value
