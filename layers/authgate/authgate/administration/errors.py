"""An input an administrative operation refuses, whoever typed it: the admin commands print its message after
"authgate <group>: ", the console shows it on its 400 page."""

from __future__ import annotations


class InvalidInput(ValueError):
    """An argument the operation refuses; the message says which and why."""


def quoted(value: str) -> str:
    """The value quoted for an error line, control characters escaped so the line stays one line."""
    return repr(value[:60] + ("…" if len(value) > 60 else ""))
