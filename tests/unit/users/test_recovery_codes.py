"""users.recovery_codes: ten codes of 80 bits, hashed the same however they are typed."""

from __future__ import annotations

import re

from authgate.users import recovery_codes


def test_ten_distinct_codes_in_four_groups() -> None:
    codes = recovery_codes.new_codes()
    assert len(codes) == 10 == len(set(codes))
    assert all(re.fullmatch(r"[a-z2-7]{4}(-[a-z2-7]{4}){3}", c) for c in codes)


def test_a_code_hashes_the_same_with_or_without_dashes_in_any_case() -> None:
    code = recovery_codes.new_codes()[0]
    hashed = recovery_codes.hash_code(code)
    assert re.fullmatch(r"[0-9a-f]{64}", hashed)
    assert recovery_codes.hash_code(code.replace("-", "").upper()) == hashed
    assert recovery_codes.hash_code(" ".join(code.split("-"))) == hashed
    assert recovery_codes.hash_code(code[:-1] + ("a" if code[-1] != "a" else "b")) != hashed


def test_a_code_matches_one_of_the_held_hashes_as_typed() -> None:
    codes = recovery_codes.new_codes()
    held = [recovery_codes.hash_code(c) for c in codes]
    assert recovery_codes.matched(held, codes[3].upper().replace("-", " ")) == held[3]
    assert recovery_codes.matched(held, "aaaa-bbbb-cccc-dddd") is None
    assert recovery_codes.matched([], codes[0]) is None
