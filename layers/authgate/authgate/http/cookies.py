"""Reading one cookie of a request's Cookie headers (RFC 6265 5.4): the value of a random token only."""

from __future__ import annotations


def token_cookie(cookie_headers: list[str], name: str, max_length: int) -> str | None:
    """The value of cookie `name` when it is a url-safe random token of 20 to `max_length` characters, else None."""
    for header in cookie_headers:
        for part in header.split(";"):
            found, _, value = part.strip().partition("=")
            if found == name and 20 <= len(value) <= max_length and all(c.isalnum() or c in "-_" for c in value):
                return value
    return None
