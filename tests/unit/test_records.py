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
