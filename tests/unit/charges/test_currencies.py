"""charges.currencies: active ISO 4217 codes, lower-case; funds, metals and test codes are not currencies here."""

from __future__ import annotations

import pytest

from authgate.charges.currencies import ISO_4217, is_iso_4217


@pytest.mark.parametrize(("code", "known"), [("usd", True), ("eur", True), ("jpy", True), ("USD", False),
                                             ("xau", False), ("xts", False), ("xxx", False), ("", False)])
def test_known_codes(code: str, known: bool) -> None:
    assert is_iso_4217(code) is known


def test_every_code_is_three_lower_case_letters() -> None:
    assert all(len(c) == 3 and c.isascii() and c.isalpha() and c.islower() for c in ISO_4217)
