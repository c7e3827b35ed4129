"""Tenant records cached for 60 s across warm invocations (the token and charges hot paths).

client_credentials reads its client's tenant (admin approval, forbidden scopes) and the charges
route its tenant's currencies on every request; the cache keeps that read out of the
per-request DynamoDB budget and CPU. A change to a tenant (a scope newly forbidden, an approval
withdrawn, a currency enabled) reaches a warm function within the TTL. Failures are never
cached: a throttled read raises service_unavailable now and is retried on the next request.
"""

from __future__ import annotations

import threading

from authgate import clock
from authgate.caches import cached
from authgate.stores.tenants import Tenant, TenantStore

TTL_SECONDS = 60.0


class _Cache:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[float, Tenant | None]] = {}

    def get(self, tenant_id: str) -> Tenant | None:
        now = clock.now()
        with self._lock:
            hit = self._entries.get(tenant_id)
        if hit is not None and 0 <= now - hit[0] < TTL_SECONDS:
            return hit[1]
        tenant = TenantStore().get(tenant_id)
        with self._lock:
            self._entries[tenant_id] = (now, tenant)
        return tenant


@cached
def _cache() -> _Cache:
    return _Cache()


def get_tenant(tenant_id: str) -> Tenant | None:
    """TenantStore().get(tenant_id), at most TTL_SECONDS old (by authgate.clock)."""
    return _cache().get(tenant_id)
