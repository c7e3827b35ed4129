"""Where a browser-based client may call the token, revocation, metadata and JWKS endpoints from.

A browser-based app is a public client (RFC 6749 2.1: it cannot keep a secret), and its code
runs on the origins of its registered redirect URIs (the code comes back there). So an origin
is allowed exactly when a public client of this environment has a redirect URI on it (RFC 6454
origins: scheme, host and port; a native app's private-use scheme has none).

ClientStore keeps one origin record per (environment, origin), written when a client is
registered, so the check is one GetItem on ClientsTable, never a scan. Answers are cached per
warm container for 60 s (a newly registered browser app can call cross-origin within a minute),
in a bounded LRU: a stream of made-up Origin headers costs at most one read each and cannot grow
the cache past MAX_ENTRIES.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from authgate.caches import BoundedCache, cached

TTL_SECONDS = 60.0
MAX_ENTRIES = 512


@cached
def _cache() -> BoundedCache[str, bool]:
    return BoundedCache(MAX_ENTRIES, ttl=TTL_SECONDS)


def origin_allowed(origin: str, clock: Callable[[], float] = time.monotonic) -> bool:
    """Whether a public client of this environment has a redirect URI on `origin` (at most 60 s old)."""
    now = clock()
    cache = _cache()
    allowed = cache.get(origin, now)
    if allowed is None:
        from authgate.stores.clients import ClientStore

        allowed = ClientStore().origin_allowed(origin)
        cache.put(origin, allowed, now)
    return allowed
