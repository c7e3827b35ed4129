"""How admin commands print for a person (docs/local.md, "Admin commands: exit status and output"): tables,
one record's fields, times and counts.

Times are ISO 8601 in UTC (`2025-06-15T15:06:40Z`), never epoch seconds, and "-" for none; a record's
field holds a time when its name says so (`created_at`, `locked_until`, `sessions_valid_after`,
`auth_time`, `last_active`). `--json` prints the records as they are stored instead, times as epoch
seconds. A count agrees with its noun: "1 session", "2 sessions".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import IO, Any

_TIME_SUFFIXES = ("_at", "_until", "_after", "_time", "_active")


def when(seconds: int | None) -> str:
    """An epoch-seconds time in ISO 8601 UTC; "-" for none (0)."""
    from authgate.clock import iso

    return iso(int(seconds)) if seconds else "-"


def count(number: int, noun: str, plural: str = "") -> str:
    """"1 passkey", "0 passkeys", "2 passkeys"."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def is_time(field: str) -> bool:
    return field.endswith(_TIME_SUFFIXES)


def shown(field: str, value: Any) -> str:
    """One field's value in a record: yes/no, a time, words joined by spaces, "-" for nothing."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if is_time(field) and isinstance(value, int):
        return when(value)
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value) or "-"
    if value is None or value == "" or value == {}:
        return "-"
    return str(value)


def record(values: Mapping[str, Any], out: IO[str]) -> None:
    """One line per field: `name:` padded to the longest, then its value (`shown`)."""
    width = max(len(name) for name in values) + 1
    for name, value in values.items():
        out.write(f"{(name + ':').ljust(width)} {shown(name, value)}\n")


def table(headings: Sequence[str], rows: Iterable[Sequence[str]], out: IO[str]) -> None:
    """A heading line and one line per row, each column as wide as its widest cell."""
    lines = [tuple(headings), *(tuple(row) for row in rows)]
    widths = [max(len(line[i]) for line in lines) for i in range(len(headings))]
    for line in lines:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip() + "\n")
