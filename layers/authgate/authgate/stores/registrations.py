"""Dynamically registered clients in ClientsTable (RFC 7591, RFC 7592): pools, caps, use and deletion.

A registered client counts in one pool: "unassigned" from its registration until a user signs
in, then its tenant's (the first tenant whose user authorizes it holds it). The pools are a
sparse index of ClientsTable (`RegistrationPools`: registration_pool, expires_at), so counting
the live clients of a pool is one Query of keys only -- rare (a registration, a first sign-in)
and bounded by the cap. The cap is checked, then the client written: concurrent registrations
can pass it by their number in flight, no more. An unused client's record expires by itself
(DynamoDB TTL on expires_at), which `touch` pushes back at most once a day.
"""

from __future__ import annotations

import hmac
from typing import Any

from authgate.settings import get_settings
from authgate.stores.clients import hash_secret
from authgate.stores.exceptions import ClientNotFound
from authgate.stores.faults import dynamodb_faults

INDEX = "RegistrationPools"
UNASSIGNED = "unassigned"
DAY = 86400


def token_hash(token: str) -> str:
    """SHA-256 of a registration access token (256 random bits, like a client secret: nothing to brute-force)."""
    return hash_secret(token)


def token_matches(stored: str, presented: str) -> bool:
    """Constant-time comparison of a presented registration access token with the stored hash."""
    return bool(stored) and hmac.compare_digest(stored, token_hash(presented))


class RegistrationStore:
    def __init__(self, dynamodb: Any = None, table: str | None = None) -> None:
        if dynamodb is None:
            from authgate.aws import dynamodb as default_client

            dynamodb = default_client()
        self._ddb = dynamodb
        self.table = table or get_settings().tables.clients

    def live_count(self, pool: str, now: int, limit: int) -> int:
        """How many clients of `pool` have not expired (counted up to `limit`)."""
        kwargs: dict[str, Any] = {
            "TableName": self.table, "IndexName": INDEX, "Select": "COUNT",
            "KeyConditionExpression": "registration_pool = :p AND expires_at > :now",
            "ExpressionAttributeValues": {":p": {"S": pool}, ":now": {"N": str(now)}},
        }
        count = 0
        while count < limit:
            with dynamodb_faults("registrations.count"):
                page = self._ddb.query(**kwargs)
            count += int(page.get("Count", 0))
            if "LastEvaluatedKey" not in page:
                break
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return count

    def assign(self, client_id: str, tenant_id: str) -> None:
        """Make an unassigned client the tenant's; ClientNotFound if it is gone or another tenant's."""
        with dynamodb_faults("registrations.assign", refused=lambda: ClientNotFound(client_id)):
            # Only while unassigned: two tenants' first sign-ins at once, one wins.
            self._ddb.update_item(
                TableName=self.table, Key={"client_id": {"S": client_id}},
                UpdateExpression="SET tenant_id = :t, registration_pool = :t",
                ConditionExpression="attribute_exists(client_id) AND registration_pool = :u",
                ExpressionAttributeValues={":t": {"S": tenant_id}, ":u": {"S": UNASSIGNED}})

    def touch(self, client_id: str, expires_at: int) -> None:
        """Push back an used client's expiry (TTL)."""
        with dynamodb_faults("registrations.touch", refused=lambda: ClientNotFound(client_id)):
            self._ddb.update_item(
                TableName=self.table, Key={"client_id": {"S": client_id}},
                UpdateExpression="SET expires_at = :e", ConditionExpression="attribute_exists(client_id)",
                ExpressionAttributeValues={":e": {"N": str(expires_at)}})

    def delete(self, client_id: str) -> None:
        """RFC 7592 2.3: the registration is gone at once."""
        with dynamodb_faults("registrations.delete"):
            self._ddb.delete_item(TableName=self.table, Key={"client_id": {"S": client_id}})
