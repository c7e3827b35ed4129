"""TenantsTable: tenants, their enabled currencies, forbidden scopes and admin-approved clients.

The model and its rules are authgate.tenants; this module reads and writes them.
"""

from __future__ import annotations

from collections.abc import Iterator

from authgate.records import s
from authgate.stores.base import TableStore
from authgate.stores.batch import BatchRead, Pending
from authgate.tenants.errors import TenantExists, TenantNotFound
from authgate.tenants.model import Tenant, from_item, to_item


def key(tenant_id: str) -> dict[str, dict[str, str]]:
    return {"tenant_id": s(tenant_id)}


class TenantStore(TableStore):
    table_setting = "tenants"

    def get(self, tenant_id: str) -> Tenant | None:
        if not tenant_id:
            return None
        item = self.find(key(tenant_id))
        return from_item(item) if item else None

    def prefetch(self, reads: BatchRead, tenant_id: str) -> Pending:
        """Register the tenant's record in a batch read (tenants.model.from_item of it once the batch ran)."""
        return reads.add(self.table, key(tenant_id))

    def put(self, tenant: Tenant) -> None:
        self.upsert(to_item(tenant))

    def create(self, tenant: Tenant) -> None:
        """Store a new tenant; raises TenantExists rather than overwrite one (admin CLI)."""
        self.upsert(to_item(tenant), "create", condition="attribute_not_exists(tenant_id)",
                    refused=lambda: TenantExists(tenant.tenant_id))

    def replace(self, tenant: Tenant) -> None:
        """Rewrite an existing tenant's settings (admin CLI); raises TenantNotFound if there is none."""
        self.upsert(to_item(tenant), "replace", condition="attribute_exists(tenant_id)",
                    refused=lambda: TenantNotFound(tenant.tenant_id))

    def list(self) -> Iterator[Tenant]:
        """Every tenant (a Scan: for the admin CLI, never a request path)."""
        return (from_item(item) for item in self.scan())
