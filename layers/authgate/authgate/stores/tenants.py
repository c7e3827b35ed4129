"""TenantsTable: tenants, their enabled currencies, forbidden scopes and admin-approved clients.

The model and its rules are authgate.tenants; this module reads and writes them. The table also
holds one small item per login domain, `tenant_id` = "login-domain#<domain>" with the owning
tenant in `owner` ("#" is never in a tenant id): the sign-in finds an email's tenant with one
GetItem, and a conditional write keeps each domain to one tenant.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from authgate import records
from authgate.records import s
from authgate.stores.base import TableStore
from authgate.stores.batch import BatchRead, Pending
from authgate.tenants.errors import LoginDomainTaken, TenantExists, TenantNotFound
from authgate.tenants.model import Tenant, from_item, to_item

DOMAIN_PREFIX = "login-domain#"


def key(tenant_id: str) -> dict[str, dict[str, str]]:
    return {"tenant_id": s(tenant_id)}


class TenantStore(TableStore):
    table_setting = "tenants"

    def get(self, tenant_id: str) -> Tenant | None:
        if not tenant_id or "#" in tenant_id:
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
        return (from_item(item) for item in self.scan() if "#" not in records.string(item, "tenant_id"))

    def login_domain_owner(self, domain: str) -> str:
        """The id of the tenant whose users sign in with email addresses of `domain` ("" if none): one GetItem."""
        if not domain or len(domain) > 253:
            return ""
        item = self.find(key(DOMAIN_PREFIX + domain.lower()), "login_domain")
        return records.string(item or {}, "owner")

    def _taken(self, domain: str) -> LoginDomainTaken:
        return LoginDomainTaken(domain, self.login_domain_owner(domain))

    def claim_login_domains(self, tenant_id: str, domains: tuple[str, ...], previous: tuple[str, ...] = ()) -> None:
        """Make `domains` the tenant's login domains (admin CLI): each new one only if no other tenant has it
        (LoginDomainTaken), then the ones it no longer has are released."""
        for domain in domains:
            if domain in previous:
                continue
            self.upsert({**key(DOMAIN_PREFIX + domain), "owner": s(tenant_id)}, "claim_login_domain",
                        condition="attribute_not_exists(tenant_id) OR #o = :me", names={"#o": "owner"},
                        values={":me": s(tenant_id)},
                        refused=partial(self._taken, domain))
        for domain in previous:
            if domain not in domains:
                try:
                    self.destroy(key(DOMAIN_PREFIX + domain), "release_login_domain", condition="#o = :me",
                                 names={"#o": "owner"}, values={":me": s(tenant_id)},
                                 refused=partial(LoginDomainTaken, domain, ""))
                except LoginDomainTaken:
                    pass  # another tenant's now: not this one's to release
