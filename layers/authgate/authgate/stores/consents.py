"""ConsentsTable: what a person approved for a client, remembered (single sign-on asks only for what is new).

Key (tenant#user_id, client_id) -> the scopes granted and the resource they were for. A new
approval adds its scopes to the remembered ones (ADD to a string set); a request is covered when
every scope it asks is remembered for the same resource. The item also keeps when the last approval was
given (`granted_at`) and the ids of the grants made under it (`grants`: each refresh-token family, added in
the transaction that starts it), so that withdrawing the consent (authgate.grants.consent) can end them;
forgetting deletes the client's entry and answers those ids.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from authgate import clock
from authgate.records import n, s, ss
from authgate.sessions.model import user_key
from authgate.stores.base import TableStore
from authgate.stores.batch import BatchRead, Pending

# The resource of a request that named none (the charges API, RFC 6749 3.3's default).
DEFAULT_RESOURCE = "-"


def _key(tenant_id: str, user_id: str, client_id: str) -> dict[str, Any]:
    return {"user_key": s(user_key(tenant_id, user_id)), "client_id": s(client_id)}


class Consent(NamedTuple):
    """A client's remembered approval: the scopes per resource (DEFAULT_RESOURCE for none named), when it was last
    given (epoch seconds, 0 when not known) and the grants made under it."""

    client_id: str
    scopes: dict[str, tuple[str, ...]]
    granted_at: int
    grants: tuple[str, ...]


def _consent(item: dict[str, Any]) -> Consent:
    scopes = {name.removeprefix("scopes "): tuple(sorted(value["SS"])) for name, value in item.items()
              if name.startswith("scopes ")}
    return Consent(item["client_id"]["S"], dict(sorted(scopes.items())), int(item.get("granted_at", {}).get("N", 0)),
                   tuple(sorted(item.get("grants", {}).get("SS", []))))


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
                                UpdateExpression="ADD #r :scopes SET granted_at = :now",
                                ExpressionAttributeNames={"#r": _attribute(resource)},
                                ExpressionAttributeValues={":scopes": ss(scopes), ":now": n(clock.seconds())})

    def grant_write(self, tenant_id: str, user_id: str, client_id: str, grant_id: str) -> dict[str, Any]:
        """The transaction item that adds a grant made under the client's consent (beside its refresh family); an
        approval remembered nowhere else (a device's) is listed from then on, by the grant's time."""
        return {"Update": {"TableName": self.table, "Key": _key(tenant_id, user_id, client_id),
                           "UpdateExpression": "ADD grants :g SET granted_at = if_not_exists(granted_at, :now)",
                           "ExpressionAttributeValues": {":g": ss([grant_id]), ":now": n(clock.seconds())}}}

    def of_user(self, tenant_id: str, user_id: str) -> list[Consent]:
        """Every client the person approved, by client id (one Query per page)."""
        out: list[Consent] = []
        start: dict[str, Any] | None = None
        while True:
            with self.faults("of_user"):
                page = self.db.query(TableName=self.table, KeyConditionExpression="user_key = :k",
                                     ExpressionAttributeValues={":k": s(user_key(tenant_id, user_id))},
                                     **({"ExclusiveStartKey": start} if start else {}))
            out += [_consent(item) for item in page.get("Items", [])]
            start = page.get("LastEvaluatedKey")
            if not start:
                return out

    def forget(self, tenant_id: str, user_id: str, client_id: str) -> Consent | None:
        """Revoke what the person approved for the client (the next authorization asks again): the consent that
        was remembered, None when there was none (one DeleteItem)."""
        with self.faults("forget"):
            old = self.db.delete_item(TableName=self.table, Key=_key(tenant_id, user_id, client_id),
                                      ReturnValues="ALL_OLD").get("Attributes")
        return _consent(old) if old else None


def _attribute(resource: str | None) -> str:
    """The attribute holding a resource's remembered scopes."""
    return "scopes " + (resource or DEFAULT_RESOURCE)
