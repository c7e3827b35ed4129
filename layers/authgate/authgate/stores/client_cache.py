"""Clients' error formats and profiles cached for 60 s across warm invocations (the bearer guard's hot path).

The guard needs the token's client on every protected request: that it still exists in this
environment (a deleted client's tokens stop working within the TTL) and its registered error
format (so a 403 is rendered in the client's shape) and profile (a fapi2 client's DPoP proofs
take FAPI 2.0's algorithms only). A miss costs no call of its own: the
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
    """A client's error format and profile: known from the cache, or registered in a batch read."""

    client_id: str
    cached: tuple[str | None, str] | None
    pending: Pending | None = None

    def error_format(self) -> str | None:
        """The client's error format; None when the client no longer exists (or is of another
        environment). For a miss, after the batch ran."""
        return self._known()[0]

    def profile(self) -> str:
        """The client's profile ("" or "fapi2", oauth.clients.profile); after error_format."""
        return self._known()[1]

    def _known(self) -> tuple[str | None, str]:
        if self.cached is not None:
            return self.cached
        client = ClientStore().found(self.pending)
        value = (client.error_format, client.profile) if client is not None else (None, "")
        _cache().put(self.client_id, value, clock.seconds())
        return value


@cached
def _cache() -> BoundedCache[str, tuple[str | None, str]]:
    return BoundedCache(MAX_ENTRIES, ttl=TTL_SECONDS)


def lookup(reads: BatchRead, client_id: str) -> ClientLookup:
    """The client's error format from the cache, or its record registered in `reads` on a miss."""
    hit = _cache().get(client_id, clock.seconds())
    if hit is not None:
        return ClientLookup(client_id, hit)
    return ClientLookup(client_id, None, ClientStore().prefetch(reads, client_id))
