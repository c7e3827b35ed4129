"""ConsentsTable: what a person approved for a client, remembered (single sign-on asks only for what is new).

Key (tenant#user_id, client_id) -> the scopes granted and the resource they were for. A new
approval adds its scopes to the remembered ones (ADD to a string set); a request is covered when
every scope it asks is remembered for the same resource. Revoking forgets the client's entry.
"""

from __future__ import annotations

from typing import Any

from authgate.records import s, ss
from authgate.sessions.model import user_key
from authgate.stores.base import TableStore
from authgate.stores.batch import BatchRead, Pending

# The resource of a request that named none (the charges API, RFC 6749 3.3's default).
DEFAULT_RESOURCE = "-"


def _key(tenant_id: str, user_id: str, client_id: str) -> dict[str, Any]:
    return {"user_key": s(user_key(tenant_id, user_id)), "client_id": s(client_id)}


class ConsentStore(TableStore):
    """ConsentsTable: (tenant#user_id, client_id) -> remembered scopes per resource."""

    table_setting = "consents"

    def prefetch(self, reads: BatchRead, tenant_id: str, user_id: str, client_id: str) -> Pending:
        """Register what the person approved for the client in a request's batch read (`covers` reads it)."""
        return reads.add(self.table, _key(tenant_id, user_id, client_id))

    @staticmethod
    def covers(item: dict[str, Any] | None, scopes: tuple[str, ...], resource: str | None) -> bool:
        """Whether the remembered approval `item` holds every one of `scopes` for this resource."""
        if not item:
            return False
        granted = set(item.get(_attribute(resource), {}).get("SS", []))
        return all(scope in granted for scope in scopes)

    def remember(self, tenant_id: str, user_id: str, client_id: str, scopes: tuple[str, ...],
                 resource: str | None) -> None:
        """Add an approval's scopes to what is remembered for this client and resource."""
        if not scopes:
            return
        with self.faults("remember"):
            self.db.update_item(TableName=self.table, Key=_key(tenant_id, user_id, client_id),
                                UpdateExpression="ADD #r :scopes", ExpressionAttributeNames={"#r": _attribute(resource)},
                                ExpressionAttributeValues={":scopes": ss(scopes)})

    def of_user(self, tenant_id: str, user_id: str) -> list[tuple[str, dict[str, tuple[str, ...]]]]:
        """What the person approved, by client: [(client_id, {resource: scopes})], in client id order (the
        resource "-" is the default one, DEFAULT_RESOURCE)."""
        out: list[tuple[str, dict[str, tuple[str, ...]]]] = []
        start: dict[str, Any] | None = None
        while True:
            with self.faults("of_user"):
                page = self.db.query(TableName=self.table, KeyConditionExpression="user_key = :k",
                                     ExpressionAttributeValues={":k": s(user_key(tenant_id, user_id))},
                                     **({"ExclusiveStartKey": start} if start else {}))
            out.extend((item["client_id"]["S"], {name.removeprefix("scopes "): tuple(sorted(value["SS"]))
                                                 for name, value in sorted(item.items())
                                                 if name.startswith("scopes ") and "SS" in value})
                       for item in page.get("Items", []))
            start = page.get("LastEvaluatedKey")
            if not start:
                return out

    def forget(self, tenant_id: str, user_id: str, client_id: str) -> None:
        """Revoke what the person approved for the client: the next authorization asks again."""
        self.destroy(_key(tenant_id, user_id, client_id), "forget")


def _attribute(resource: str | None) -> str:
    """The attribute holding a resource's remembered scopes."""
    return "scopes " + (resource or DEFAULT_RESOURCE)
