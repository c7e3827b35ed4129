"""Pagination cursors: round trip, tamper evidence, bound to the tenant."""

from __future__ import annotations

import pytest

from authgate.charges import cursor
from authgate.charges.model import new_charge_id
from authgate.errors import ApiError, FieldError


def test_round_trip():
    charge_id = new_charge_id()
    assert cursor.decode("demo", cursor.encode("demo", charge_id)) == charge_id


@pytest.mark.parametrize("mutate", [
    lambda c: c[:-1], lambda c: c + "A", lambda c: c.replace(".", ".."), lambda c: "A" + c,
    lambda c: c.split(".")[0], lambda c: "", lambda c: "x" * 300, lambda c: "%%%.%%%",
])
def test_tampered_cursor_is_invalid_request_on_the_parameter(mutate):
    good = cursor.encode("demo", new_charge_id())
    with pytest.raises(ApiError) as info:
        cursor.decode("demo", mutate(good))
    assert (info.value.code, info.value.status) == ("invalid_request", 400)
    assert info.value.field_errors == (FieldError("", info.value.detail, location="query", name="cursor"),)


def test_cursor_of_another_tenant_is_invalid():
    with pytest.raises(ApiError):
        cursor.decode("acme", cursor.encode("demo", new_charge_id()))


def test_checked_payload_must_still_name_a_charge():
    import base64
    import json

    payload = json.dumps({"v": 1, "before": "charge-for#x"}, separators=(",", ":")).encode()
    head = base64.urlsafe_b64encode(payload).rstrip(b"=").decode()
    tail = base64.urlsafe_b64encode(cursor._check("demo", payload)).rstrip(b"=").decode()
    with pytest.raises(ApiError):
        cursor.decode("demo", f"{head}.{tail}")
