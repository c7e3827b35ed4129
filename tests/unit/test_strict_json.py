"""authgate.strict_json (RFC 8259): what a lenient parser would accept and this one refuses."""

from __future__ import annotations

import pytest

from authgate.strict_json import DuplicateMember, loads


def test_plain_json_is_read_as_usual() -> None:
    assert loads('{"a": [1, 2.5, "\\u00e9", null, true], "b": {"c": -0}}') == {
        "a": [1, 2.5, "é", None, True], "b": {"c": 0}}
    assert loads('"\\ud83d\\ude00"') == "😀"  # a surrogate pair is one character


def test_a_duplicate_member_is_refused_and_named() -> None:
    with pytest.raises(DuplicateMember) as info:
        loads('{"alg": "ES256", "alg": "none"}')
    assert (info.value.name, str(info.value)) == ("alg", "duplicate member 'alg'")


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"x": -Infinity}', "1e999", '"\\ud800"', '["\\udc00x"]',
                                  "[" * 100_000 + "]" * 100_000])
def test_what_is_not_json_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        loads(text)
