"""authorization_details.registered: a registered type's JSON Schema (Draft 2020-12) and the objects it checks."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.authorization_details.errors import SchemaInvalid
from authgate.authorization_details.registered import check_schema, describe


@pytest.mark.parametrize(("schema", "message"), [
    ([], "The schema must be a JSON object (a JSON Schema, Draft 2020-12)."),
    ({"type": "objekt"}, ("The schema is not a valid Draft 2020-12 schema: 'objekt' is not valid under any of the "
                         "given schemas")),
    ({"minLength": -1}, "The schema is not a valid Draft 2020-12 schema: -1 is less than the minimum of 0"),
    ({"description": "x" * 16400}, "The schema is longer than 16384 characters."),
])
def test_invalid_schemas_are_refused(schema: Any, message: str) -> None:
    with pytest.raises(SchemaInvalid) as refused:
        check_schema(schema)
    assert str(refused.value) == message


def test_a_valid_schema_passes() -> None:
    check_schema({"type": "object", "properties": {"folder": {"type": "string"}}, "required": ["folder"]})


def test_describe_summarises_and_bounds() -> None:
    entry = {"type": "t", "flag": True, "n": 3, "list": ["a", "b"], "nested": {"k": "v"}, "long": "x" * 100}
    assert describe(entry) == f"t — flag: true; n: 3; list: a, b; nested: k: v; long: {'x' * 79}…"
    assert describe({"type": "t"}) == "t"
    many = {"type": "t", **{f"f{i}": i for i in range(10)}}
    assert describe(many) == "t — " + "; ".join(f"f{i}: {i}" for i in range(8)) + "; …"
