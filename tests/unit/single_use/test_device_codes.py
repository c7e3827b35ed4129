"""single_use.device_codes: user codes of RFC 8628 6.1 (base-20 consonants, 10 characters, XXXXX-XXXXX)."""

from __future__ import annotations

from authgate.single_use.device_codes import ALPHABET, new_user_code, normalised, shown


def test_user_codes_use_the_recommended_alphabet_and_length() -> None:
    assert ALPHABET == "BCDFGHJKLMNPQRSTVWXZ"
    codes = {new_user_code() for _ in range(200)}
    assert len(codes) == 200 and all(len(c) == 10 and set(c) <= set(ALPHABET) for c in codes)
    assert shown("BCDFGHJKLM") == "BCDFG-HJKLM"


def test_typed_codes_are_compared_without_case_dashes_or_spaces() -> None:
    assert normalised("bcdfg-hjklm") == normalised(" BCDFG HJKLM ") == normalised("BcDfGhJkLm") == "BCDFGHJKLM"
    assert normalised("BCDFG-HJKL") is None and normalised("AEIOU-BCDFG") is None and normalised("") is None
    assert normalised("BCDF-GHJK") is None  # an 8-character code of before: none is issued any more
    assert normalised("B" * 10_000) is None
