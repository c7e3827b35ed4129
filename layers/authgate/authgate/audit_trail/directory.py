"""The local stack's audit trail: the chain's objects as files of a directory (`authgate serve` keeps it
under `--data`, else beside the server's state file; docs/local.md).

    <dir>/events/date=YYYY-MM-DD/<NNNNNNNNNNNN>.jsonl   the objects (read-only once written)
    <dir>/mac.key                                        the seal's key (authgate.audit_trail.mac)
    <dir>/lock                                           held while an object is appended

The server's consumer and the admin commands of another terminal both append: `lock` makes one
append at a time, and each reads the head anew under it. A file is written under another name,
then linked to its own: a name that exists is never replaced.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from authgate.audit_trail.chain import PREFIX, Stored
from authgate.audit_trail.mac import LocalMac


class DirectoryStore:
    shared_head = False  # another process may have appended: read the head under the lock

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def mac(self) -> LocalMac:
        return LocalMac(self.root / "mac.key")

    @contextlib.contextmanager
    def appending(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / "lock", os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def dates(self) -> list[str]:
        base = self.root / PREFIX
        if not base.is_dir():
            return []
        return sorted(p.name.removeprefix("date=") for p in base.iterdir() if p.name.startswith("date="))

    def names(self, date: str) -> list[str]:
        """The day's objects, oldest first."""
        folder = self.root / PREFIX / f"date={date}"
        if not folder.is_dir():
            return []
        return [f"{PREFIX}date={date}/{p.name}" for p in sorted(folder.iterdir(), reverse=True)
                if p.name.endswith(".jsonl")]

    def newest(self, date: str) -> str | None:
        names = self.names(date)
        return names[-1] if names else None

    def latest(self, date: str, count: int) -> list[str]:
        return self.names(date)[-count:]

    def read(self, name: str) -> bytes:
        return (self.root / name).read_bytes()

    def stored(self, name: str) -> Stored:
        return Stored(name, self.read(name))

    def write(self, name: str, body: bytes) -> None:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o400)
        try:
            os.write(fd, body)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        finally:
            tmp.unlink()

    def versions(self, date: str) -> dict[str, int]:
        """Files have one version: an edit shows as a broken chain or seal, not here."""
        return {}
