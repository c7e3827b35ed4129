"""TenantsTable: tenants, their enabled currencies, forbidden scopes and admin-approved clients."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from authgate import records
from authgate.records import Field
from authgate.stores.base import TableStore
from authgate.stores.exceptions import TenantExists, TenantNotFound


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


# A tenant's attributes, in `Tenant`'s order: the DynamoDB item, the seed loader and the admin
# commands' settings (authgate_cli.admin.tenant_settings) follow it. To add a setting, add it to
# `Tenant`, here, and to the admin table of settings.
FIELDS = (
    Field("tenant_id", "S"),
    Field("name", "S", ""),
    Field("currencies", "STRINGS", ()),
    Field("forbidden_scopes", "STRINGS", ()),
    Field("approved_clients", "STRINGS", ()),
    Field("client_metadata_hosts", "STRINGS", (), omit_empty=True),
    Field("registered_clients", "BOOL", False, omit_empty=True),
    Field("registered_clients_cap", "N", 100),
)
# Held as sets in `Tenant` (order means nothing; stored sorted).
_SETS = ("forbidden_scopes", "approved_clients")


def tenant_of(values: Mapping[str, Any]) -> Tenant:
    """A Tenant from values by field name (a seed's JSON, an item read back): sets for the set-valued fields,
    tuples for lists; absent fields take their defaults, unknown names are ignored."""
    known = {f.name: values[f.name] for f in FIELDS if f.name in values}
    for name, value in known.items():
        if isinstance(value, (list, tuple, set, frozenset)):
            known[name] = frozenset(value) if name in _SETS else tuple(value)
    return Tenant(**known)


def from_item(item: records.Item) -> Tenant:
    return tenant_of(records.from_item(FIELDS, item))


def _to_item(t: Tenant) -> records.Item:
    values = t._asdict()
    for name in _SETS:
        values[name] = sorted(values[name])
    return records.to_item(FIELDS, values)


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

    def replace(self, tenant: Tenant) -> None:
        """Rewrite an existing tenant's settings (admin CLI); raises TenantNotFound if there is none."""
        with self.faults("replace", refused=lambda: TenantNotFound(tenant.tenant_id)):
            self.db.put_item(TableName=self.table, Item=_to_item(tenant),
                             ConditionExpression="attribute_exists(tenant_id)")

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
