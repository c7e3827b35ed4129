"""Tenant records cached for 60 s across warm invocations (the token and charges hot paths).

client_credentials reads its client's tenant (admin approval, forbidden scopes) and the charges
route its tenant's currencies on every request; the cache keeps that read out of the
per-request DynamoDB budget and CPU. A change to a tenant (a scope newly forbidden, an approval
withdrawn, a currency enabled) reaches a warm function within the TTL. Failures are never
cached: a throttled read raises service_unavailable now and is retried on the next request.
A miss may ride on another read's BatchGetItem (`prefetch`: the token endpoint's signing-key read).
"""

from __future__ import annotations

from typing import NamedTuple

from authgate import clock
from authgate.caches import BoundedCache, cached
from authgate.stores.batch import BatchRead, Pending
from authgate.stores.tenants import TenantStore
from authgate.tenants.model import Tenant, from_item

TTL_SECONDS = 60.0
MAX_ENTRIES = 10_000  # bounded: a warm function sees a few tenants


@cached
def _cache() -> BoundedCache[str, tuple[Tenant | None]]:
    return BoundedCache(MAX_ENTRIES, ttl=TTL_SECONDS)


def get_tenant(tenant_id: str) -> Tenant | None:
    """TenantStore().get(tenant_id), at most TTL_SECONDS old (by authgate.clock)."""
    now = clock.now()
    hit = _cache().get(tenant_id, now)
    if hit is not None:
        return hit[0]
    tenant = TenantStore().get(tenant_id)
    _cache().put(tenant_id, (tenant,), now)
    return tenant


class TenantRead(NamedTuple):
    """A tenant's record registered in a batch read on a cache miss; `keep()` caches it once the batch ran."""

    tenant_id: str
    pending: Pending

    def keep(self) -> None:
        item = self.pending.item
        _cache().put(self.tenant_id, (from_item(item) if item else None,), clock.now())


def prefetch(reads: BatchRead, tenant_id: str) -> TenantRead | None:
    """Register the tenant's record in `reads` unless the cache holds it (None then, or for no tenant)."""
    if not tenant_id or _cache().get(tenant_id, clock.now()) is not None:
        return None
    return TenantRead(tenant_id, TenantStore().prefetch(reads, tenant_id))
