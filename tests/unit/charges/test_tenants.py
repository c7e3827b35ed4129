"""A tenant's currencies are read once per 60 s per warm container."""

from __future__ import annotations

from authgate.charges import tenants


def test_cached_for_the_ttl(aws):
    from authgate.stores.tenants import Tenant, TenantStore

    TenantStore().put(Tenant("t1", currencies=("usd",)))
    now = [1000.0]
    assert tenants.enabled_currencies("t1", clock=lambda: now[0]) == {"usd"}
    TenantStore().put(Tenant("t1", currencies=("usd", "eur")))
    now[0] += 59
    assert tenants.enabled_currencies("t1", clock=lambda: now[0]) == {"usd"}
    now[0] += 2
    assert tenants.enabled_currencies("t1", clock=lambda: now[0]) == {"usd", "eur"}


def test_unknown_tenant_has_no_currencies(aws):
    assert tenants.enabled_currencies("nobody") == frozenset()
