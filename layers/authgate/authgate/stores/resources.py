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

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from authgate.settings import get_settings
from authgate.stores.exceptions import ResourceExists, ResourceNotFound, StoreError
from authgate.stores.faults import cancellation_codes, dynamodb_faults

INTROSPECTOR_PREFIX = "introspector "


class Resource(NamedTuple):
    """A protected resource: the `aud` of the tokens issued for it (RFC 8707 2, RFC 9068 2.2)."""

    resource: str
    scopes: tuple[str, ...]
    # Empty: every tenant may use it.
    tenants: tuple[str, ...] = ()
    introspection_client_id: str = ""
    created_at: int = 0
    # The charges API: known without a record (tokens.profile.default_audience).
    builtin: bool = False

    def allows_tenant(self, tenant_id: str) -> bool:
        return not self.tenants or tenant_id in self.tenants

    def public_view(self) -> dict[str, Any]:
        return {"resource": self.resource, "scopes": list(self.scopes), "tenants": list(self.tenants),
                "introspection_client_id": self.introspection_client_id or None, "created_at": self.created_at,
                "builtin": self.builtin}


def introspector_key(client_id: str) -> dict[str, Any]:
    return {"resource": {"S": INTROSPECTOR_PREFIX + client_id}}


def _to_item(r: Resource) -> dict[str, Any]:
    return {
        "resource": {"S": r.resource}, "kind": {"S": "resource"},
        "scopes": {"L": [{"S": s} for s in r.scopes]}, "tenants": {"L": [{"S": t} for t in r.tenants]},
        "introspection_client_id": {"S": r.introspection_client_id}, "created_at": {"N": str(r.created_at)},
    }


def _strings(attr: dict[str, Any] | None) -> tuple[str, ...]:
    return tuple(v["S"] for v in (attr or {}).get("L", []) if "S" in v)


def from_item(item: dict[str, Any]) -> Resource:
    return Resource(
        resource=item["resource"]["S"], scopes=_strings(item.get("scopes")), tenants=_strings(item.get("tenants")),
        introspection_client_id=item.get("introspection_client_id", {}).get("S", ""),
        created_at=int(item.get("created_at", {}).get("N", "0")),
    )


class ResourceStore:
    def __init__(self, dynamodb: Any = None, table: str | None = None) -> None:
        if dynamodb is None:
            from authgate.aws import dynamodb as default_client

            dynamodb = default_client()
        self._ddb = dynamodb
        self.table = table or get_settings().tables.resources

    def get(self, resource: str) -> Resource | None:
        """The registered resource, or None (one GetItem)."""
        if not resource or len(resource) > 2000 or resource.startswith(INTROSPECTOR_PREFIX):
            return None
        with dynamodb_faults("resources.get"):
            item = self._ddb.get_item(TableName=self.table, Key={"resource": {"S": resource}}).get("Item")
        return from_item(item) if item else None

    def introspected_by(self, client_id: str) -> str | None:
        """The resource whose tokens `client_id` may introspect (RFC 7662 4), or None (one GetItem)."""
        if not client_id or len(client_id) > 200:
            return None
        with dynamodb_faults("resources.introspector"):
            item = self._ddb.get_item(TableName=self.table, Key=introspector_key(client_id)).get("Item")
        return item["target"]["S"] if item and "target" in item else None

    def create(self, resource: Resource) -> None:
        """The resource and its introspector record in one transaction; ResourceExists if registered."""
        puts: list[dict[str, Any]] = [{"Put": {
            "TableName": self.table, "Item": _to_item(resource),
            "ConditionExpression": "attribute_not_exists(#r)", "ExpressionAttributeNames": {"#r": "resource"}}}]
        if resource.introspection_client_id:
            puts.append({"Put": {"TableName": self.table, "Item": {
                **introspector_key(resource.introspection_client_id), "kind": {"S": "introspector"},
                "target": {"S": resource.resource}}}})
        self._transact("resources.create", puts, lambda: ResourceExists(resource.resource))

    def update(self, resource: Resource) -> None:
        """Rewrite a registered resource's scopes and tenants; ResourceNotFound if it is gone."""
        with dynamodb_faults("resources.update", refused=lambda: ResourceNotFound(resource.resource)):
            self._ddb.put_item(TableName=self.table, Item=_to_item(resource),
                               ConditionExpression="attribute_exists(#r)", ExpressionAttributeNames={"#r": "resource"})

    def delete(self, resource: Resource, clients_table: str | None = None) -> None:
        """The resource, its introspector record and its introspection client, in one transaction."""
        deletes: list[dict[str, Any]] = [{"Delete": {
            "TableName": self.table, "Key": {"resource": {"S": resource.resource}},
            "ConditionExpression": "attribute_exists(#r)", "ExpressionAttributeNames": {"#r": "resource"}}}]
        if resource.introspection_client_id:
            deletes.append({"Delete": {"TableName": self.table, "Key": introspector_key(resource.introspection_client_id)}})
            deletes.append({"Delete": {"TableName": clients_table or get_settings().tables.clients,
                                       "Key": {"client_id": {"S": resource.introspection_client_id}}}})
        self._transact("resources.delete", deletes, lambda: ResourceNotFound(resource.resource))

    def _transact(self, operation: str, items: list[dict[str, Any]], refused: Callable[[], StoreError]) -> None:
        """One TransactWriteItems; its first item's failed condition is `refused()`."""
        from botocore.exceptions import ClientError

        with dynamodb_faults(operation):
            try:
                self._ddb.transact_write_items(TransactItems=items)
            except ClientError as exc:
                if cancellation_codes(exc.response)[:1] == ["ConditionalCheckFailed"]:
                    raise refused() from exc
                raise

    def list(self) -> Iterator[Resource]:
        """Every registered resource (a Scan: for the admin CLI, never a request path)."""
        kwargs: dict[str, Any] = {"TableName": self.table, "ConsistentRead": True}
        while True:
            with dynamodb_faults("resources.scan"):
                page = self._ddb.scan(**kwargs)
            for item in page.get("Items", []):
                if not item["resource"]["S"].startswith(INTROSPECTOR_PREFIX):
                    yield from_item(item)
            if "LastEvaluatedKey" not in page:
                return
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
