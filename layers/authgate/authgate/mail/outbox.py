"""The local stack's outbox: what a deployed stage would send (mail, later back-channel logout and webhook calls)
is kept here instead, one JSON object per line (JSON Lines), for the demo app to show (docs/local.md, "The outbox").

The file is `settings.outbox` (AUTHGATE_OUTBOX, set only by `authgate serve`; a deployed function never
has one). Every entry has `id` (random), `kind` (e.g. "mail"), `created_at` (epoch seconds) and the
kind's own members. Each entry is one `write` of one line to a file opened for appending, so entries
from concurrent writers never interleave.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

from authgate import clock

MAX_ENTRY = 64 * 1024  # bytes of one line; a bigger entry is refused, not cut
MAX_READ = 1000  # entries `read` returns at most (the newest)


def append(path: str, kind: str, **members: Any) -> dict[str, Any]:
    """Add one entry of `kind` with `members` to the outbox at `path`; returns it."""
    entry = {"id": secrets.token_urlsafe(12), "kind": kind, "created_at": clock.seconds(), **members}
    line = (json.dumps(entry, separators=(",", ":"), sort_keys=True) + "\n").encode("utf-8")
    if len(line) > MAX_ENTRY:
        raise ValueError(f"an outbox entry is at most {MAX_ENTRY} bytes")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
    return entry


def read(path: str, kind: str | None = None) -> list[dict[str, Any]]:
    """The outbox's entries (of `kind` when given), oldest first, at most MAX_READ of the newest."""
    try:
        lines = Path(path).read_text("utf-8").splitlines()
    except FileNotFoundError:
        return []
    entries = []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a line cut short by a crash: skipped, never fatal
        if isinstance(entry, dict) and (kind is None or entry.get("kind") == kind):
            entries.append(entry)
    return entries[-MAX_READ:]
