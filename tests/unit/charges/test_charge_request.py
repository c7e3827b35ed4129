"""ChargeRequest: strict types, bounds, unknown members, our own messages and RFC 6901 pointers."""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from authgate.charges.charge_request import MESSAGES, ChargeRequest, parse_charge_request, pointer
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


def test_messages_are_never_a_librarys_own():
    with pytest.raises(ApiError) as info:
        parse_charge_request({"amount": 0, "currency": "US", "description": 1, "invoice_id": "", "z": 1})
    messages = [f.message for f in info.value.field_errors]
    assert not any("Input should" in m or "pydantic" in m for m in messages)
    assert [f.pointer for f in info.value.field_errors] == ["/amount", "/currency", "/description", "/invoice_id", "/z"]


@pytest.mark.parametrize("description", ["Order\x001042", "a\x01", "line\nbreak", "tab\t", "\x1f", "del\x7f",
                                         "c1\x85", "\x9f"])
def test_description_with_a_control_character_is_refused(description):
    with pytest.raises(ApiError) as info:
        parse_charge_request({"amount": 1, "currency": "usd", "description": description})
    assert [(f.pointer, f.message) for f in info.value.field_errors] == [
        ("/description", "must not contain control characters (U+0000-U+001F, U+007F-U+009F)")]


@pytest.mark.parametrize("description", ["Order 1042", "Café – 10 €", "\xa0no-break space", "👨\u200d👩", "a" * 500])
def test_description_of_printable_text_is_kept(description):
    assert parse_charge_request({"amount": 1, "currency": "usd", "description": description}).description == description


def test_pointer_escapes_rfc_6901():
    assert pointer(("a/b", "c~d", 0)) == "/a~1b/c~0d/0"
    assert pointer(()) == ""


# ---------------------------------------------------------------- held to pydantic's own results
def _oracle() -> Any:
    """The schema as a pydantic model in strict mode: what charges.charge_request must agree with."""
    from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, field_validator
    from pydantic_core import PydanticCustomError

    from authgate.charges.currencies import is_iso_4217
    from authgate.charges.model import MAX_AMOUNT, MAX_DESCRIPTION

    class Charge(BaseModel):
        model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

        amount: StrictInt = Field(gt=0, le=MAX_AMOUNT)
        currency: StrictStr
        description: StrictStr | None = Field(default=None, max_length=MAX_DESCRIPTION)
        invoice_id: StrictStr | None = Field(default=None, pattern=r"^[A-Za-z0-9_-]{1,64}$")

        @field_validator("currency")
        @classmethod
        def _iso_4217(cls, value: str) -> str:
            if not is_iso_4217(value):
                raise PydanticCustomError("currency_code", "not ISO 4217")
            return value

        @field_validator("description")
        @classmethod
        def _no_control_character(cls, value: str | None) -> str | None:
            if value is not None and any(unicodedata.category(c) == "Cc" for c in value):
                raise PydanticCustomError("control_character", "a control character")
            return value

    return Charge


ORACLE = _oracle()
VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.sampled_from([0, 1, 99_999_999, 100_000_000]),
    st.floats(allow_nan=False), st.text(max_size=70),
    st.sampled_from(["usd", "eur", "US", "xts", "", "a" * 500, "a" * 501, "é" * 501, "inv_1", "a" * 64, "a" * 65,
                     "x-y_z", "a b", "abc\n", "usd\n", "a\x00b", "\x1f", "\x7f", "\x85", "\x9f", "\xa0",
                     "tab\there", "é\u200d"]),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2))
BODIES = st.dictionaries(st.sampled_from(["amount", "currency", "description", "invoice_id", "z", "a/b", "~x", ""]),
                         VALUES, max_size=7)


@settings(max_examples=3000, deadline=None)
@given(BODIES)
def test_agrees_with_pydantic_strict_mode(body: dict[str, Any]) -> None:
    from pydantic import ValidationError

    try:
        expected: Any = ORACLE.model_validate(body).model_dump(exclude_none=True)
    except ValidationError as exc:
        expected = [(pointer(e["loc"]), MESSAGES[e["type"]]) for e in exc.errors()]
    try:
        seen: Any = parse_charge_request(body).canonical()
    except ApiError as error:
        seen = [(f.pointer, f.message) for f in error.field_errors]
    assert seen == expected
