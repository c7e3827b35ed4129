"""Clients' error formats cached for 60 s across warm invocations (the bearer guard's hot path).

The guard needs the token's client on every protected request: that it still exists in this
environment (a deleted client's tokens stop working within the TTL) and its registered error
format (so a 403 is rendered in the client's shape). A miss costs no call of its own: the
client's record is read in the request's batch read (stores.batch) with the revocation ids.
"""

from __future__ import annotations

from typing import NamedTuple

from authgate import clock
from authgate.caches import BoundedCache, cached
from authgate.stores.batch import BatchRead, Pending
from authgate.stores.clients import ClientStore

TTL_SECONDS = 60
MAX_ENTRIES = 10_000  # bounded: a warm function sees a few hundred clients


class ClientLookup(NamedTuple):
    """A client's error format: known from the cache, or registered in a batch read."""

    client_id: str
    cached: tuple[str | None] | None
    pending: Pending | None = None

    def error_format(self) -> str | None:
        """The client's error format; None when the client no longer exists (or is of another
        environment). For a miss, after the batch ran."""
        if self.cached is not None:
            return self.cached[0]
        client = ClientStore().found(self.pending)
        value = client.error_format if client is not None else None
        _cache().put(self.client_id, (value,), clock.seconds())
        return value


@cached
def _cache() -> BoundedCache[str, tuple[str | None]]:
    return BoundedCache(MAX_ENTRIES, ttl=TTL_SECONDS)


def lookup(reads: BatchRead, client_id: str) -> ClientLookup:
    """The client's error format from the cache, or its record registered in `reads` on a miss."""
    hit = _cache().get(client_id, clock.seconds())
    if hit is not None:
        return ClientLookup(client_id, hit)
    return ClientLookup(client_id, None, ClientStore().prefetch(reads, client_id))
