"""oauth.scopes: the scope parameter (RFC 6749 3.3) parsed strictly, order kept, duplicates dropped."""

from __future__ import annotations

import pytest

from authgate.oauth.scopes import ScopeSyntaxError, format_scope, parse_scope


def test_tokens_keep_request_order_and_lose_duplicates() -> None:
    assert parse_scope("charges:write charges:read charges:write") == ("charges:write", "charges:read")
    assert parse_scope("") == ()
    assert format_scope(("charges:read", "charges:write")) == "charges:read charges:write"


@pytest.mark.parametrize("raw", [" charges:read", "charges:read ", "a  b", "a\tb", 'a"b', "a\\b", "é", "a\nb"])
def test_anything_but_scope_tokens_separated_by_single_spaces_is_refused(raw: str) -> None:
    with pytest.raises(ScopeSyntaxError):
        parse_scope(raw)


def test_every_printable_scope_token_character_is_accepted() -> None:
    token = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in '"\\')
    assert parse_scope(token) == (token,)
