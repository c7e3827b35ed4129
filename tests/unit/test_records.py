"""authgate.records: the table-driven DynamoDB marshaller and public view."""

from __future__ import annotations

from authgate import records
from authgate.records import Field

FIELDS = (
    Field("id", "S"), Field("count", "N", 0), Field("on", "BOOL", False, omit_empty=True),
    Field("tags", "STRINGS", ()), Field("jwks", "KEYS", (), omit_empty=True), Field("hash", "S", "", public=False),
)


def test_values_round_trip_through_an_item() -> None:
    values = {"id": "a", "count": 3, "on": True, "tags": ("x", "y"), "jwks": ({"kty": "OKP"},), "hash": "h"}
    item = records.to_item(FIELDS, values)
    assert item == {"id": {"S": "a"}, "count": {"N": "3"}, "on": {"BOOL": True},
                    "tags": {"L": [{"S": "x"}, {"S": "y"}]}, "jwks": {"S": '{"keys":[{"kty":"OKP"}]}'},
                    "hash": {"S": "h"}}
    assert records.from_item(FIELDS, item) == values


def test_absent_or_mistyped_attributes_read_as_missing() -> None:
    assert records.from_item(FIELDS, {"id": {"S": "a"}, "on": {"S": "yes"}, "jwks": {"N": "1"}}) == {
        "id": "a", "count": 0, "on": False, "tags": (), "jwks": (), "hash": ""}


def test_the_public_view_leaves_private_fields_out_and_lists_tuples() -> None:
    values = {"id": "a", "count": 1, "on": False, "tags": ("x",), "jwks": (), "hash": "h"}
    assert records.public_view(FIELDS, values) == {"id": "a", "count": 1, "on": False, "tags": ["x"],
                                                   "jwks": {"keys": []}}
    assert (records.s("v"), records.n(7)) == ({"S": "v"}, {"N": "7"})


def test_sets_json_and_attributes_left_out_only_when_none() -> None:
    fields = (Field("members", "SET", ()), Field("params", "JSON"), Field("note", "S", omit_none=True),
              Field("paid_at", "N", omit_none=True))
    values = {"members": ("a", "b"), "params": {"scope": ["read"]}, "note": "", "paid_at": None}
    item = records.to_item(fields, values)
    # An empty string is a value (written); None is absence (left out, and read back as None).
    assert item == {"members": {"SS": ["a", "b"]}, "params": {"S": '{"scope":["read"]}'}, "note": {"S": ""}}
    assert records.from_item(fields, item) == values
    assert records.from_item(fields, {"members": {"SS": ["b", "a"]}}) == {
        "members": ("a", "b"), "params": None, "note": None, "paid_at": None}
    assert records.public_view(fields, values)["members"] == ["a", "b"]


def test_one_attribute_of_an_item_with_its_default() -> None:
    item = {"limit_key": {"S": "api#t#60"}, "total": {"N": "3"}, "odd": {"S": "x"}}
    assert (records.string(item, "limit_key"), records.number(item, "total")) == ("api#t#60", 3)
    assert (records.number(item, "absent"), records.number(item, "odd", 7), records.string(item, "total")) == (0, 7, "")
    assert records.ss(["c1"]) == {"SS": ["c1"]}
