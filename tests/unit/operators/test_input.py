"""operators.input: what an operator types, refused with one reason that names the command's option."""

from __future__ import annotations

import pytest

from authgate.operators.input import InvalidInput, email, identifier, text


@pytest.mark.parametrize(("check", "value", "reason"), [
    (lambda v: identifier(v, "--tenant"), "", "--tenant must not be empty"),
    (lambda v: identifier(v, "--tenant"), "de mo", ("--tenant 'de mo' must be printable ASCII without spaces or "
                                                   "control characters")),
    (lambda v: identifier(v, "--client", limit=4), "abcde", "--client is longer than 4 characters"),
    (lambda v: text(v, "--name"), "  ", "--name must not be empty"),
    (lambda v: text(v, "--name"), "Bob\u202e", r"--name 'Bob\u202e' contains the control character U+202E"),
    (lambda v: text(v, "--name"), "Bob ", "--name 'Bob ' starts or ends with a space"),
    (lambda v: email(v), "bob@localhost", ("--email 'bob@localhost' is not an email address such as "
                                          "alice@example.com")),
    (lambda v: email(v), "a@b@c.example", ("--email 'a@b@c.example' is not an email address such as "
                                          "alice@example.com")),
])
def test_each_refusal_says_which_and_why(check: object, value: str, reason: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        check(value)  # type: ignore[operator]
    assert str(refused.value) == reason


def test_what_is_well_formed_is_returned_as_given() -> None:
    assert identifier("demo-web", "--client") == "demo-web"
    assert text("Bob Example", "--name") == "Bob Example"
    assert email("bob@demo.example") == "bob@demo.example"
