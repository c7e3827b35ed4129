"""Dynamically registered clients in ClientsTable (RFC 7591, RFC 7592): pools, caps, use and deletion.

A registered client counts in one pool: "unassigned" from its registration until a user signs
in, then its tenant's (the first tenant whose user authorizes it holds it). The pools are a
sparse index of ClientsTable (`RegistrationPools`: registration_pool, expires_at), so counting
the live clients of a pool is one Query of keys only -- rare (a registration, a first sign-in)
and bounded by the cap. The cap is checked, then the client written: concurrent registrations
can pass it by their number in flight, no more. A client no user has signed in to expires a
day after it was registered (UNUSED_LIFETIME), so one address cannot fill the unassigned pool
and keep it full; its first sign-in (`assign`) gives it the deployment's idle lifetime, which
`touch` pushes back at most once a day. Records leave by themselves (DynamoDB TTL on expires_at).
"""

from __future__ import annotations

import hmac
from typing import Any

from authgate.clients.model import Client, hash_secret, to_item
from authgate.records import n, s
from authgate.stores.base import TableStore
from authgate.stores.exceptions import ClientNotFound

INDEX = "RegistrationPools"
UNASSIGNED = "unassigned"
DAY = 86400
UNUSED_LIFETIME = DAY


def token_hash(token: str) -> str:
    """SHA-256 of a registration access token (256 random bits, like a client secret: nothing to brute-force)."""
    return hash_secret(token)


def token_matches(stored: str, presented: str) -> bool:
    """Constant-time comparison of a presented registration access token with the stored hash."""
    return bool(stored) and hmac.compare_digest(stored, token_hash(presented))


class RegistrationStore(TableStore):
    """The registered clients' side of ClientsTable (the records themselves: stores.clients)."""

    table_setting = "clients"
    name = "registrations"

    def live_count(self, pool: str, now: int, limit: int) -> int:
        """How many clients of `pool` have not expired (counted up to `limit`)."""
        kwargs: dict[str, Any] = {
            "TableName": self.table, "IndexName": INDEX, "Select": "COUNT",
            "KeyConditionExpression": "registration_pool = :p AND expires_at > :now",
            "ExpressionAttributeValues": {":p": s(pool), ":now": n(now)},
        }
        count = 0
        while count < limit:
            with self.faults("count"):
                page = self.db.query(**kwargs)
            count += int(page.get("Count", 0))
            if "LastEvaluatedKey" not in page:
                break
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return count

    def next_expiry(self, pool: str, now: int) -> int | None:
        """When the first live client of `pool` expires (None when none is live): one Query, one key."""
        with self.faults("next_expiry"):
            page = self.db.query(
                TableName=self.table, IndexName=INDEX, Limit=1, ScanIndexForward=True,
                KeyConditionExpression="registration_pool = :p AND expires_at > :now",
                ExpressionAttributeValues={":p": s(pool), ":now": n(now)})
        items = page.get("Items") or []
        return int(items[0]["expires_at"]["N"]) if items else None

    def assign(self, client_id: str, tenant_id: str, expires_at: int) -> None:
        """Make an unassigned client the tenant's, now used: it lives until `expires_at`; ClientNotFound
        if it is gone or another tenant's."""
        with self.faults("assign", refused=lambda: ClientNotFound(client_id)):
            # Only while unassigned: two tenants' first sign-ins at once, one wins.
            self.db.update_item(
                TableName=self.table, Key={"client_id": s(client_id)},
                UpdateExpression="SET tenant_id = :t, registration_pool = :t, expires_at = :e",
                ConditionExpression="attribute_exists(client_id) AND registration_pool = :u",
                ExpressionAttributeValues={":t": s(tenant_id), ":u": s(UNASSIGNED), ":e": n(expires_at)})

    def replace(self, client: Client, token_hash_was: str) -> None:
        """RFC 7592 2.2: write the client's new registration (and token hash) if the token presented
        is still its current one; ClientNotFound if it is gone or its token changed meanwhile."""
        with self.faults("replace", refused=lambda: ClientNotFound(client.client_id)):
            self.db.put_item(TableName=self.table, Item=to_item(client),
                             ConditionExpression="registration_token_hash = :was",
                             ExpressionAttributeValues={":was": s(token_hash_was)})

    def touch(self, client_id: str, expires_at: int) -> None:
        """Push back an used client's expiry (TTL)."""
        with self.faults("touch", refused=lambda: ClientNotFound(client_id)):
            self.db.update_item(
                TableName=self.table, Key={"client_id": s(client_id)},
                UpdateExpression="SET expires_at = :e", ConditionExpression="attribute_exists(client_id)",
                ExpressionAttributeValues={":e": n(expires_at)})

    def delete(self, client_id: str) -> None:
        """RFC 7592 2.3: the registration is gone at once."""
        with self.faults("delete"):
            self.db.delete_item(TableName=self.table, Key={"client_id": s(client_id)})
