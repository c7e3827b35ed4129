"""Where a browser-based client may call the token, revocation, metadata and JWKS endpoints from.

A browser-based app is a public client (RFC 6749 2.1: it cannot keep a secret), and its code
runs on the origins of its registered redirect URIs (the code comes back there). So the allowed
origins are exactly those of the redirect URIs registered by public clients of this environment
(RFC 6454 origins: scheme, host and port; a native app's private-use scheme has none). Read with
one scan of ClientsTable, cached for 60 s per warm container: a newly registered browser app
can call cross-origin within a minute, one removed stops within a minute plus the browser's
preflight cache (authgate.http.cors.MAX_AGE_SECONDS).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from authgate.dependencies import cached

TTL_SECONDS = 60.0


class _Cache:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entry: tuple[float, frozenset[str]] | None = None

    def get(self, clock: Callable[[], float]) -> frozenset[str]:
        now = clock()
        with self._lock:
            entry = self._entry
        if entry is not None and 0 <= now - entry[0] < TTL_SECONDS:
            return entry[1]
        origins = _read()
        with self._lock:
            self._entry = (now, origins)
        return origins


def _read() -> frozenset[str]:
    from authgate.http.cors import origin_of
    from authgate.settings import get_settings
    from authgate.stores.clients import ClientStore

    stage = get_settings().stage
    origins = {origin_of(uri) for client in ClientStore().list()
               if client.is_public and client.environment == stage for uri in client.redirect_uris}
    return frozenset(o for o in origins if o)


@cached
def _cache() -> _Cache:
    return _Cache()


def allowed_origins(clock: Callable[[], float] = time.monotonic) -> frozenset[str]:
    """The origins of every public client's redirect URIs in this environment, at most 60 s old."""
    return _cache().get(clock)
