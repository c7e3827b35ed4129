"""A tenant's enabled currencies, read through the warm tenant cache (authgate.stores.tenant_cache).

The charges route reads them on every POST; the cache keeps the tenant read out of the
per-request DynamoDB budget. A change to a tenant's currencies takes effect within its TTL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate.stores.tenant_cache import get_tenant

if TYPE_CHECKING:
    from authgate.tenants.model import Tenant


def enabled_currencies(tenant_id: str) -> frozenset[str]:
    return currencies_of(get_tenant(tenant_id))


def currencies_of(tenant: Tenant | None) -> frozenset[str]:
    """The currencies a tenant's charges may use. An unknown tenant has none: every charge is
    currency_not_enabled, never a 500."""
    return frozenset(c.lower() for c in tenant.currencies) if tenant else frozenset()
