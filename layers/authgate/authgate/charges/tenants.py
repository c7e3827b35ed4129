"""A tenant's enabled currencies, cached for 60 s across warm invocations.

The charges route reads them on every POST; the cache keeps the tenant read out of the
per-request DynamoDB budget. A change to a tenant's currencies takes effect within the TTL.
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
        self._entries: dict[str, tuple[float, frozenset[str]]] = {}

    def get(self, tenant_id: str, load: Callable[[str], frozenset[str]], clock: Callable[[], float]) -> frozenset[str]:
        now = clock()
        with self._lock:
            hit = self._entries.get(tenant_id)
        if hit is not None and now - hit[0] < TTL_SECONDS:
            return hit[1]
        value = load(tenant_id)
        with self._lock:
            self._entries[tenant_id] = (now, value)
        return value


@cached
def _cache() -> _Cache:
    return _Cache()


def _load(tenant_id: str) -> frozenset[str]:
    from authgate.stores.tenants import TenantStore

    tenant = TenantStore().get(tenant_id)
    # An unknown tenant has no currencies: every charge is currency_not_enabled, never a 500.
    return frozenset(c.lower() for c in getattr(tenant, "currencies", ()) or ()) if tenant else frozenset()


def enabled_currencies(tenant_id: str, clock: Callable[[], float] = time.monotonic) -> frozenset[str]:
    return _cache().get(tenant_id, _load, clock)
