"""authorization_details.charge: authgate's `charge` type (RFC 9396 2) in words, and what is within what (6.2)."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.authorization_details import charge
from authgate.authorization_details.errors import DetailsExceeded

HELD = {"type": "charge", "actions": ["create"], "amount": 1250, "currency": "usd", "max_charges": 2}


@pytest.mark.parametrize(("entry", "words"), [
    ({**HELD, "max_charges": 1, "description": "Order 1042"}, "charge up to 12.50 USD, once — 'Order 1042'"),
    ({**HELD, "amount": 5, "currency": "eur"}, "charge up to 0.05 EUR, twice"),
    ({**HELD, "amount": 1250, "currency": "jpy", "max_charges": 3}, "charge up to 1250 JPY, up to 3 times"),
    ({**HELD, "amount": 1250, "currency": "kwd"}, "charge up to 1.250 KWD, twice"),
])
def test_describe(entry: dict[str, Any], words: str) -> None:
    assert charge.describe(entry) == words


@pytest.mark.parametrize(("entry", "within"), [
    (HELD, True),
    ({**HELD, "amount": 1}, True),
    ({**HELD, "max_charges": 1}, True),
    ({**HELD, "amount": 1251}, False),
    ({**HELD, "currency": "eur"}, False),
    ({**HELD, "max_charges": 3}, False),
    ({**HELD, "description": "other"}, False),
])
def test_within(entry: dict[str, Any], within: bool) -> None:
    assert charge.within(entry, HELD) is within


@pytest.mark.parametrize(("details", "amount", "currency", "refusal"), [
    ([HELD], 1250, "usd", None),
    ([HELD], 1, "usd", None),
    ([HELD], 1251, "usd", "The approved payment is at most 12.50 USD a charge; this charge is 12.51 USD."),
    ([HELD], 1250, "eur", "The approved payment is in USD, not EUR."),
    ([{"type": "file_access"}], 1, "usd", "The access token's authorization_details allow no charge."),
    ([{**HELD, "actions": ["refund"]}], 1, "usd",
     "The approved payment is at most 12.50 USD a charge; this charge is 0.01 USD."),
])
def test_allowance(details: list[dict[str, Any]], amount: int, currency: str, refusal: str | None) -> None:
    if refusal is None:
        assert charge.allowance(details, amount, currency) == 2
        return
    with pytest.raises(DetailsExceeded) as refused:
        charge.allowance(details, amount, currency)
    assert str(refused.value) == refusal


def test_normalized_fills_the_defaults() -> None:
    assert charge.normalized({"type": "charge", "amount": 7, "currency": "usd"}, "d[0]", frozenset({"usd"}),
                             "https://as/charges") == {"type": "charge", "actions": ["create"], "amount": 7,
                                                       "currency": "usd", "max_charges": 1}
