"""How `authgate users` shows a user: its JSON view (never the password hash), a table row, a record."""

from __future__ import annotations

import argparse
import json
from typing import IO, Any


def view(user: Any) -> dict[str, Any]:
    """The JSON view of a user: every public field and whether the sign-in throttle locks it now."""
    from authgate import clock, records
    from authgate.users.model import FIELDS

    return {**records.public_view(FIELDS, user._asdict()), "locked": user.locked(clock.seconds())}


def _state(user: Any) -> str:
    """The STATE column: disabled, locked, must-change-password, or active."""
    from authgate import clock

    flags = [flag for flag, on in (("disabled", user.disabled), ("locked", user.locked(clock.seconds())),
                                   ("must-change-password", user.must_change_password)) if on]
    return ",".join(flags) or "active"


def write_table(users: list[Any], out: IO[str]) -> None:
    """`authgate users list`: one row per user."""
    rows = [("USERNAME", "USER_ID", "NAME", "EMAIL", "STATE"),
            *((u.username, u.user_id or "-", u.name or "-", (u.email + ("" if u.email_verified else " (unverified)"))
               if u.email else "-", _state(u)) for u in users)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() + "\n")


def write_record(user: Any, out: IO[str]) -> None:
    """`authgate users show`: one line per field of the JSON view."""
    values = view(user)
    width = max(len(k) for k in values) + 1
    for name, value in values.items():
        shown = ("yes" if value else "no") if isinstance(value, bool) else str(value) if value != "" else "-"
        out.write(f"{(name + ':').ljust(width)} {shown}\n")


def done(args: argparse.Namespace, user: Any, out: IO[str], what: str) -> int:
    """What an action prints about the user it wrote: its JSON view, or one line saying `what` happened."""
    out.write(json.dumps(view(user), indent=2) + "\n" if args.json
              else f"user {user.username} {what} in tenant {user.tenant_id}\n")
    return 0
