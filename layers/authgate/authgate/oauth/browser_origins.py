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

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from authgate.caches import cached

TTL_SECONDS = 60.0
MAX_ENTRIES = 512


class _Cache:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, tuple[float, bool]] = OrderedDict()

    def get(self, origin: str, clock: Callable[[], float]) -> bool:
        now = clock()
        with self._lock:
            entry = self._entries.get(origin)
        if entry is not None and 0 <= now - entry[0] < TTL_SECONDS:
            return entry[1]
        from authgate.stores.clients import ClientStore

        allowed = ClientStore().origin_allowed(origin)
        with self._lock:
            self._entries[origin] = (now, allowed)
            self._entries.move_to_end(origin)
            while len(self._entries) > MAX_ENTRIES:
                self._entries.popitem(last=False)
        return allowed


@cached
def _cache() -> _Cache:
    return _Cache()


def origin_allowed(origin: str, clock: Callable[[], float] = time.monotonic) -> bool:
    """Whether a public client of this environment has a redirect URI on `origin` (at most 60 s old)."""
    return _cache().get(origin, clock)
