"""Registered resources cached for 60 s across warm invocations (authorize, PAR, token, introspection).

A token request naming a resource (RFC 8707 2) reads its record, and an introspection by a
resource server (RFC 7662 2.1) the record naming the resource it serves; the cache keeps those
reads out of the per-request DynamoDB budget. A change (a scope added, a tenant withdrawn, a
resource deleted) reaches a warm function within the TTL. Failures are never cached.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from authgate import clock
from authgate.caches import cached
from authgate.resources.model import Resource
from authgate.stores.resources import ResourceStore

TTL_SECONDS = 60.0
MAX_ENTRIES = 1_000  # bounded: a deployment registers tens of resources, not thousands

V = TypeVar("V")


class _Cache(Generic[V]):
    def __init__(self, load: Callable[[str], V]) -> None:
        self._load = load
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[float, V]] = {}

    def get(self, key: str) -> V:
        now = clock.now()
        with self._lock:
            hit = self._entries.get(key)
        if hit is not None and 0 <= now - hit[0] < TTL_SECONDS:
            return hit[1]
        value = self._load(key)
        with self._lock:
            if len(self._entries) >= MAX_ENTRIES:
                self._entries.clear()
            self._entries[key] = (now, value)
        return value


@cached
def _resources() -> _Cache[Resource | None]:
    return _Cache(lambda uri: ResourceStore().get(uri))


@cached
def _introspectors() -> _Cache[str | None]:
    return _Cache(lambda client_id: ResourceStore().introspected_by(client_id))


def get_resource(uri: str) -> Resource | None:
    """ResourceStore().get(uri), at most TTL_SECONDS old (by authgate.clock)."""
    return _resources().get(uri)


def introspected_by(client_id: str) -> str | None:
    """ResourceStore().introspected_by(client_id), at most TTL_SECONDS old."""
    return _introspectors().get(client_id)
