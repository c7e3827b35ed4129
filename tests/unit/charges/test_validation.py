"""ChargeRequest: strict types, bounds, unknown members, our own messages and RFC 6901 pointers."""

from __future__ import annotations

import pytest

from authgate.charges.validation import ChargeRequest, parse_charge_request, pointer
from authgate.errors import ApiError


def test_valid_request_and_its_canonical_form():
    request = parse_charge_request({"amount": 99_999_999, "currency": "eur", "description": None})
    assert request == ChargeRequest(amount=99_999_999, currency="eur")
    assert request.canonical() == {"amount": 99_999_999, "currency": "eur"}


@pytest.mark.parametrize("amount", [True, False, "1", 1.0, 1.5, None, [1], {"v": 1}])
def test_amount_must_be_a_json_integer(amount):
    with pytest.raises(ApiError) as info:
        parse_charge_request({"amount": amount, "currency": "usd"})
    assert [(f.pointer, f.message) for f in info.value.field_errors] == [
        ("/amount", "must be an integer (minor units, e.g. 1050 for 10.50)")]


def test_messages_are_never_pydantics_own():
    with pytest.raises(ApiError) as info:
        parse_charge_request({"amount": 0, "currency": "US", "description": 1, "invoice_id": "", "z": 1})
    messages = [f.message for f in info.value.field_errors]
    assert not any("Input should" in m or "pydantic" in m for m in messages)
    assert [f.pointer for f in info.value.field_errors] == ["/amount", "/currency", "/description", "/invoice_id", "/z"]


def test_pointer_escapes_rfc_6901():
    assert pointer(("a/b", "c~d", 0)) == "/a~1b/c~0d/0"
    assert pointer(()) == ""
