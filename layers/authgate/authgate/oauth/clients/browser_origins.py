"""Where a browser-based client (RFC 6749 2.1) may call from: an origin (RFC 6454) of a public client's redirect URI.

One GetItem on the origin index, cached per warm function for TTL_SECONDS in a bounded cache.
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
        # Only a cross-origin request asks: the jwks function serves its keys and metadata without
        # ClientsTable's store (docs/decisions.md, measured shortcuts).
        from authgate.stores.clients import ClientStore

        allowed = ClientStore().origin_allowed(origin)
        cache.put(origin, allowed, now)
    return allowed
