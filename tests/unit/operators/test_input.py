"""authgate.operators.input: identifiers and text as an operator types them, one reason per refusal."""

from __future__ import annotations

import pytest

from authgate.operators.input import InvalidInput, identifier, shown, text


@pytest.mark.parametrize(("value", "message"), [
    ("", "--tenant must not be empty"), ("a b", ("--tenant 'a b' must be printable ASCII without spaces or control "
                                               "characters")),
    ("x" * 201, "--tenant is longer than 200 characters"),
])
def test_identifiers(value: str, message: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        identifier(value, "--tenant")
    assert str(refused.value) == message
    assert identifier("acme-1", "--tenant") == "acme-1"


@pytest.mark.parametrize(("value", "message"), [
    ("  ", "--name must not be empty"), ("Bob\nEvil", "--name 'Bob\\nEvil' contains the control character U+000A"),
    ("Bob ", "--name 'Bob ' starts or ends with a space"), ("x" * 201, "--name is longer than 200 characters"),
])
def test_text(value: str, message: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        text(value, "--name")
    assert str(refused.value) == message
    assert text("Zoë Example", "--name") == "Zoë Example"


def test_a_long_value_is_cut_in_a_message() -> None:
    assert shown("x" * 61) == repr("x" * 60 + "…")
