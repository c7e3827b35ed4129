"""TenantsTable: tenants, their enabled currencies, forbidden scopes and admin-approved clients."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from authgate.stores.base import TableStore
from authgate.stores.exceptions import TenantExists


class Tenant(NamedTuple):
    tenant_id: str
    name: str = ""
    currencies: tuple[str, ...] = ()
    forbidden_scopes: frozenset[str] = frozenset()
    approved_clients: frozenset[str] = frozenset()
    # Which clients known only by a Client ID Metadata Document this tenant's users may authorize
    # (docs/agents.md): () none, ("*",) any host, else hosts ("tools.example") and domains
    # (".example.com": any host under it).
    client_metadata_hosts: tuple[str, ...] = ()
    # Dynamically registered clients (RFC 7591): whether its users may authorize them, and how
    # many this tenant holds at most (a client becomes the tenant's at its first sign-in).
    registered_clients: bool = False
    registered_clients_cap: int = 100

    def accepts_metadata_host(self, host: str) -> bool:
        """Whether this tenant's policy accepts a client whose metadata document is on `host`."""
        host = host.lower()
        for allowed in self.client_metadata_hosts:
            if allowed == "*" or allowed == host or (allowed.startswith(".") and host.endswith(allowed)):
                return True
        return False

    def forbids(self, scope: str) -> bool:
        return scope in self.forbidden_scopes

    def has_approved(self, client_id: str) -> bool:
        return client_id in self.approved_clients


def _strings(attr: dict[str, Any] | None) -> list[str]:
    if not attr:
        return []
    if "L" in attr:
        return [v["S"] for v in attr["L"] if "S" in v]
    return list(attr.get("SS", ()))


def from_item(item: dict[str, Any]) -> Tenant:
    return Tenant(
        tenant_id=item["tenant_id"]["S"],
        name=item.get("name", {}).get("S", ""),
        currencies=tuple(_strings(item.get("currencies"))),
        forbidden_scopes=frozenset(_strings(item.get("forbidden_scopes"))),
        approved_clients=frozenset(_strings(item.get("approved_clients"))),
        client_metadata_hosts=tuple(_strings(item.get("client_metadata_hosts"))),
        registered_clients=bool(item.get("registered_clients", {}).get("BOOL", False)),
        registered_clients_cap=int(item.get("registered_clients_cap", {}).get("N", "100")),
    )


def _to_item(t: Tenant) -> dict[str, Any]:
    item = {
        "tenant_id": {"S": t.tenant_id}, "name": {"S": t.name},
        "currencies": {"L": [{"S": c} for c in t.currencies]},
        "forbidden_scopes": {"L": [{"S": s} for s in sorted(t.forbidden_scopes)]},
        "approved_clients": {"L": [{"S": c} for c in sorted(t.approved_clients)]},
    }
    if t.client_metadata_hosts:
        item["client_metadata_hosts"] = {"L": [{"S": h} for h in t.client_metadata_hosts]}
    if t.registered_clients:
        item["registered_clients"] = {"BOOL": True}
        item["registered_clients_cap"] = {"N": str(t.registered_clients_cap)}
    return item


class TenantStore(TableStore):
    table_setting = "tenants"

    def get(self, tenant_id: str) -> Tenant | None:
        if not tenant_id:
            return None
        with self.faults("get"):
            item = self.db.get_item(TableName=self.table, Key={"tenant_id": {"S": tenant_id}},
                                    ConsistentRead=True).get("Item")
        return from_item(item) if item else None

    def put(self, tenant: Tenant) -> None:
        with self.faults("put"):
            self.db.put_item(TableName=self.table, Item=_to_item(tenant))

    def create(self, tenant: Tenant) -> None:
        """Store a new tenant; raises TenantExists rather than overwrite one (admin CLI)."""
        with self.faults("create", refused=lambda: TenantExists(tenant.tenant_id)):
            self.db.put_item(TableName=self.table, Item=_to_item(tenant),
                             ConditionExpression="attribute_not_exists(tenant_id)")

    def list(self) -> Iterator[Tenant]:
        """Every tenant (a Scan: for the admin CLI, never a request path)."""
        kwargs: dict[str, Any] = {"TableName": self.table, "ConsistentRead": True}
        while True:
            with self.faults("scan"):
                page = self.db.scan(**kwargs)
            yield from (from_item(item) for item in page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                return
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
