"""A tenant's currencies are read once per 60 s per warm container."""

from __future__ import annotations

from authgate.charges import tenants


def test_cached_for_the_ttl(aws, clock):
    from authgate.stores.tenants import TenantStore
    from authgate.tenants.model import Tenant

    TenantStore().put(Tenant("t1", currencies=("usd",)))
    assert tenants.enabled_currencies("t1") == {"usd"}
    TenantStore().put(Tenant("t1", currencies=("usd", "eur")))
    clock.advance(59)
    assert tenants.enabled_currencies("t1") == {"usd"}
    clock.advance(2)
    assert tenants.enabled_currencies("t1") == {"usd", "eur"}


def test_unknown_tenant_has_no_currencies(aws):
    assert tenants.enabled_currencies("nobody") == frozenset()
