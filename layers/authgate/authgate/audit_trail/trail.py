"""Appending a batch of events as the next object of the chain (authgate.audit_trail.chain).

The head (the newest object's sequence and digest) is found once: the newest day's first listed
name, then that object. A bucket has one writer, the audit function reading the stream's one shard
in order, so its head stays in memory between batches; a directory is appended to by the server
and by admin commands, so its head is read again under the directory's lock.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from authgate import clock
from authgate.audit.event import iso_time
from authgate.audit_trail.chain import (
    Damaged,
    Head,
    Signer,
    Stored,
    digest,
    head_of,
    name_of,
    seal,
    sequence_of,
)


class Store(Protocol):
    """Where a chain's objects are kept (authgate.audit_trail.bucket, .directory)."""

    shared_head: bool

    def appending(self) -> AbstractContextManager[None]: ...
    def dates(self) -> list[str]: ...
    def names(self, date: str) -> list[str]: ...
    def newest(self, date: str) -> str | None: ...
    def latest(self, date: str, count: int) -> list[str]: ...
    def read(self, name: str) -> bytes: ...
    def stored(self, name: str) -> Stored: ...
    def versions(self, date: str) -> dict[str, int]: ...
    def write(self, name: str, body: bytes) -> None: ...


def read_head(store: Store) -> Head | None:
    """The newest object of the chain, or None for an empty one. An object damaged since it was written
    still heads the chain (its successor seals its bytes as they are); `authgate events verify` reports it."""
    for date in reversed(store.dates()):
        name = store.newest(date)
        if name is None:
            continue
        body = store.read(name)
        try:
            return head_of(body)
        except Damaged:
            return Head(sequence_of(name) or 0, digest(body), None)
    return None


class Trail:
    """One chain: its store and the key its objects are sealed with."""

    def __init__(self, store: Store, signer: Signer) -> None:
        self.store = store
        self.signer = signer
        self._head: Head | None = None
        self._known = False

    def head(self) -> Head | None:
        if not self._known or not self.store.shared_head:
            self._head, self._known = read_head(self.store), True
        return self._head

    def position(self) -> dict[str, Any] | None:
        """The stream position the newest object ends at (records up to it are kept already)."""
        head = self.head()
        return head.source if head else None

    def append(self, events: Sequence[dict[str, Any]], source: dict[str, Any] | None = None) -> str:
        """Seal `events` as the next object; its name."""
        with self.store.appending():
            head = self.head()
            sequence = head.sequence + 1 if head else 1
            now = clock.millis()
            body = seal(sequence, head.digest if head else "", events, created=iso_time(now), source=source,
                        signer=self.signer)
            name = name_of(time.strftime("%Y-%m-%d", time.gmtime(now // 1000)), sequence)
            try:
                self.store.write(name, body)
            except BaseException:
                self._known = False  # whether it was written is unknown: read the head again next time
                raise
            self._head = Head(sequence, digest(body), source)
            return name

    def objects(self, dates: Sequence[str]) -> Iterator[Stored]:
        """Every object of these days, oldest first, with its versions."""
        for date in dates:
            versions = self.store.versions(date)
            for name in self.store.names(date):
                yield self.store.stored(name)._replace(versions=versions.get(name, 1))
