"""errors.description: error_description squeezed into RFC 6749 5.2's character set (%x20-21 / %x23-5B / %x5D-7E)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from authgate.errors.description import MAX_DESCRIPTION, oauth_description

ALLOWED = {chr(c) for c in range(0x20, 0x7F)} - {'"', "\\"}


def test_quotes_backslashes_and_controls_are_replaced_and_accents_dropped() -> None:
    assert oauth_description('The "scope" a\\b is\r\nbad\tcafé') == "The 'scope' a/b is bad cafe"


def test_length_is_bounded() -> None:
    assert len(oauth_description("x" * 1000)) == MAX_DESCRIPTION


@given(st.text())
def test_any_text_comes_out_in_the_allowed_set(text: str) -> None:
    out = oauth_description(text)
    assert set(out) <= ALLOWED and len(out) <= MAX_DESCRIPTION and out == out.strip()
