"""ResourcesTable: the protected resources tokens may be issued for (RFC 8707 2, RFC 9728 2).

Two kinds of item share the key `resource`:
- a resource: its identifier (an absolute URI), its scopes (RFC 6749 3.3), the tenants that may
  use it (none listed: every tenant) and the id of its introspection client (RFC 7662 2.1);
- an introspector record, key "introspector <client_id>", naming the resource whose tokens
  that client may introspect. A URI never contains a space, so the two never collide.
The introspection client itself is an ordinary confidential client in ClientsTable with no
grant and no scope: it can authenticate, and nothing else but introspect.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from authgate import records
from authgate.records import Field, s
from authgate.resources.errors import ResourceExists, ResourceNotFound
from authgate.resources.model import Resource, from_item, to_item
from authgate.settings import get_settings
from authgate.stores.base import Refusal, TableStore
from authgate.stores.faults import cancellation_codes

INTROSPECTOR_PREFIX = "introspector "
# An introspector record: its key, its kind, and the resource whose tokens that client may introspect.
INTROSPECTOR_FIELDS = (Field("resource", "S"), Field("kind", "S"), Field("target", "S", omit_none=True))


def introspector_key(client_id: str) -> dict[str, Any]:
    return {"resource": s(INTROSPECTOR_PREFIX + client_id)}


def _key(resource: str) -> dict[str, Any]:
    return {"resource": s(resource)}


class ResourceStore(TableStore):
    table_setting = "resources"

    def get(self, resource: str) -> Resource | None:
        """The registered resource, or None (one GetItem)."""
        if not resource or len(resource) > 2000 or resource.startswith(INTROSPECTOR_PREFIX):
            return None
        item = self.find(_key(resource), consistent=False)
        return from_item(item) if item else None

    def introspected_by(self, client_id: str) -> str | None:
        """The resource whose tokens `client_id` may introspect (RFC 7662 4), or None (one GetItem)."""
        if not client_id or len(client_id) > 200:
            return None
        item = self.find(introspector_key(client_id), "introspector", consistent=False)
        target: str | None = records.from_item(INTROSPECTOR_FIELDS, item)["target"] if item else None
        return target

    def create(self, resource: Resource) -> None:
        """The resource and its introspector record in one transaction; ResourceExists if registered."""
        puts: list[dict[str, Any]] = [{"Put": {
            "TableName": self.table, "Item": to_item(resource),
            "ConditionExpression": "attribute_not_exists(#r)", "ExpressionAttributeNames": {"#r": "resource"}}}]
        if resource.introspection_client_id:
            puts.append({"Put": {"TableName": self.table, "Item": records.to_item(INTROSPECTOR_FIELDS, {
                "resource": INTROSPECTOR_PREFIX + resource.introspection_client_id, "kind": "introspector",
                "target": resource.resource})}})
        self._transact("create", puts, lambda: ResourceExists(resource.resource))

    def update(self, resource: Resource) -> None:
        """Rewrite a registered resource's scopes and tenants; ResourceNotFound if it is gone."""
        self.upsert(to_item(resource), "update", condition="attribute_exists(#r)", names={"#r": "resource"},
                    refused=lambda: ResourceNotFound(resource.resource))

    def delete(self, resource: Resource, clients_table: str | None = None) -> None:
        """The resource, its introspector record and its introspection client, in one transaction."""
        deletes: list[dict[str, Any]] = [{"Delete": {
            "TableName": self.table, "Key": _key(resource.resource),
            "ConditionExpression": "attribute_exists(#r)", "ExpressionAttributeNames": {"#r": "resource"}}}]
        if resource.introspection_client_id:
            deletes.append({"Delete": {"TableName": self.table, "Key": introspector_key(resource.introspection_client_id)}})
            deletes.append({"Delete": {"TableName": clients_table or get_settings().tables.clients,
                                       "Key": {"client_id": s(resource.introspection_client_id)}}})
        self._transact("delete", deletes, lambda: ResourceNotFound(resource.resource))

    def _transact(self, operation: str, items: list[dict[str, Any]], refused: Refusal) -> None:
        """One TransactWriteItems; its first item's failed condition is `refused()`."""
        from botocore.exceptions import ClientError

        with self.faults(operation):
            try:
                self.db.transact_write_items(TransactItems=items)
            except ClientError as exc:
                if cancellation_codes(exc.response)[:1] == ["ConditionalCheckFailed"]:
                    raise refused() from exc
                raise

    def list(self) -> Iterator[Resource]:
        """Every registered resource (a Scan: for the admin CLI, never a request path)."""
        return (from_item(item) for item in self.scan()
                if not records.string(item, "resource").startswith(INTROSPECTOR_PREFIX))
