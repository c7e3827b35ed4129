"""How `authgate users` shows a user: its JSON view (never the password hash), a table row, a record; and how
it refuses (one line on stderr, exit status 2)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from authgate_cli.admin import text, unknown


def fail(message: str) -> int:
    sys.stderr.write(f"authgate users: {message}\n")
    return 2


def unknown_user(args: argparse.Namespace) -> int:
    return fail(unknown.user(args.tenant, args.username))


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
    text.table(("USERNAME", "USER_ID", "NAME", "EMAIL", "STATE"),
               ((u.username, u.user_id or "-", u.name or "-", (u.email + ("" if u.email_verified else " (unverified)"))
                 if u.email else "-", _state(u)) for u in users), out)


def write_record(user: Any, out: IO[str]) -> None:
    """`authgate users show`: one line per field of the JSON view, times in ISO 8601."""
    text.record(view(user), out)


def done(args: argparse.Namespace, user: Any, out: IO[str], what: str) -> int:
    """What an action prints about the user it wrote: its JSON view, or one line saying `what` happened."""
    out.write(json.dumps(view(user), indent=2) + "\n" if args.json
              else f"user {user.username} {what} in tenant {user.tenant_id}\n")
    return 0
