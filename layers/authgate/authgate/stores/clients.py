"""ClientsTable: registered OAuth clients (RFC 6749 §2) and the browser-origin index beside them.

The model and its rules are authgate.clients; this module reads and writes them. Reads are
strongly consistent so a rotated-out secret stops working at once.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator
from typing import Any

from authgate import clock
from authgate.clients.model import (
    DOCUMENT_SOURCE,
    MAX_CLIENT_ID_LENGTH,
    Client,
    check_registration,
    from_item,
    hash_secret,
    new_secret,
    to_item,
)
from authgate.clients.origins import ORIGIN_PREFIX, browser_origins, origin_record_id
from authgate.records import s
from authgate.settings import get_settings
from authgate.stores.base import TableStore
from authgate.stores.batch import BatchRead, Pending
from authgate.stores.exceptions import ClientExists, ClientNotFound


class ClientStore(TableStore):
    """Reads and writes ClientsTable; a client of another environment reads as unknown."""

    table_setting = "clients"

    def key(self, client_id: str) -> dict[str, Any]:
        return {"client_id": s(client_id)}

    def get(self, client_id: str, *, any_environment: bool = False) -> Client | None:
        """The client, or None when unknown or registered for another environment (contract 5.3)."""
        if not client_id or len(client_id) > MAX_CLIENT_ID_LENGTH or client_id.startswith(ORIGIN_PREFIX):
            return None
        with self.faults("get"):
            item = self.db.get_item(TableName=self.table, Key=self.key(client_id),
                                    ConsistentRead=True).get("Item")
        return self.visible(from_item(item), any_environment) if item else None

    def get_with(self, client_id: str, extra: dict[str, list[dict[str, Any]]]
                 ) -> tuple[Client | None, dict[str, list[dict[str, Any]]]]:
        """The client plus other items (e.g. limiter counters) in ONE strongly consistent BatchGetItem.

        Returns the client (None if unknown or of another environment) and the other tables'
        items by table name.
        """
        reads = BatchRead(self.db, "clients.batch_get")
        others = {table: [reads.add(table, key) for key in keys] for table, keys in extra.items()}
        client = self.prefetch(reads, client_id)
        reads.run()
        return (self.found(client),
                {table: [item for p in pending if (item := p.item) is not None] for table, pending in others.items()})

    def prefetch(self, reads: BatchRead, client_id: str) -> Pending | None:
        """Register the client's record in the request's batch read (None: an id no client can have)."""
        if not client_id or len(client_id) > MAX_CLIENT_ID_LENGTH or client_id.startswith(ORIGIN_PREFIX):
            return None
        return reads.add(self.table, self.key(client_id))

    def found(self, pending: Pending | None) -> Client | None:
        """The client a prefetched read found (None if unknown or of another environment)."""
        item = pending.item if pending is not None else None
        return self.visible(from_item(item)) if item else None

    @staticmethod
    def visible(client: Client, any_environment: bool = False) -> Client | None:
        """The client as a request may see it: None when of another environment, or expired (a registration
        no one used, a metadata document's cache entry) but not yet removed by DynamoDB's TTL."""
        if client.expired(clock.seconds()):
            return None
        if any_environment or client.environment == get_settings().stage:
            return client
        return None

    def create(self, *, tenant_id: str, name: str = "", client_type: str = "confidential",
               redirect_uris: Iterable[str] = (), grant_types: Iterable[str] = (),
               scopes: Iterable[str] = (), error_format: str = "problem",
               requires_admin_approval: bool = False, client_id: str | None = None,
               environment: str | None = None, secret: str | None = None,
               jwks: Iterable[dict[str, Any]] = (), token_endpoint_auth_method: str = "",
               require_pushed_authorization_requests: bool = False,
               profile: str = "", dpop_bound_access_tokens: bool = False,
               resource_scopes: Iterable[tuple[str, tuple[str, ...]]] = ()) -> tuple[Client, str | None]:
        """Register a client; returns it and its plaintext secret (confidential only), shown ONCE.

        `secret` lets a local seed fix a known demo secret; otherwise one is generated. A
        private_key_jwt client gets no secret: it proves itself with its registered keys.
        """
        environment = environment or get_settings().stage
        check_registration(client_type=client_type, error_format=error_format, environment=environment,
                           token_endpoint_auth_method=token_endpoint_auth_method, profile=profile)
        plaintext = None
        if client_type == "confidential" and token_endpoint_auth_method != "private_key_jwt":
            plaintext = secret or new_secret()
        client = Client(
            client_id=client_id or f"client_{secrets.token_hex(8)}", tenant_id=tenant_id,
            environment=environment, client_type=client_type,
            secret_hash=hash_secret(plaintext) if plaintext else None,
            redirect_uris=tuple(redirect_uris), grant_types=tuple(grant_types), scopes=tuple(scopes),
            error_format=error_format, requires_admin_approval=requires_admin_approval, name=name,
            created_at=clock.seconds(), jwks=tuple(jwks), token_endpoint_auth_method=token_endpoint_auth_method,
            require_pushed_authorization_requests=require_pushed_authorization_requests, profile=profile,
            dpop_bound_access_tokens=dpop_bound_access_tokens, resource_scopes=tuple(sorted(resource_scopes)),
        )
        with self.faults("create", refused=lambda: ClientExists(client.client_id)):
            # A cached metadata document under this id gives way (draft-ietf-oauth-client-id-metadata-
            # document-02 7.2, pre-registration): the administrator's record wins, and is never fetched over.
            self.db.put_item(TableName=self.table, Item=to_item(client),
                             ConditionExpression="attribute_not_exists(client_id) OR #source = :document",
                             ExpressionAttributeNames={"#source": "source"},
                             ExpressionAttributeValues={":document": s(DOCUMENT_SOURCE)})
        self._index_origins(client)
        return client, plaintext

    def put(self, client: Client) -> None:
        """Write a client as given (seed loading; replaces an existing record)."""
        with self.faults("put"):
            self.db.put_item(TableName=self.table, Item=to_item(client))
        self._index_origins(client)

    def create_record(self, client: Client) -> None:
        """Write a new self-registered client as it is (RFC 7591); ClientExists if the id is taken."""
        with self.faults("create", refused=lambda: ClientExists(client.client_id)):
            self.db.put_item(TableName=self.table, Item=to_item(client),
                             ConditionExpression="attribute_not_exists(client_id)")

    def save(self, client: Client) -> None:
        """Write a self-registered client's record as it is (a metadata document's cache entry):
        no origin index, whose records would outlive it. Never over a record of another source (an
        administrator's client under the same id): ClientExists then."""
        with self.faults("save", refused=lambda: ClientExists(client.client_id)):
            self.db.put_item(TableName=self.table, Item=to_item(client),
                             ConditionExpression="attribute_not_exists(client_id) OR #source = :source",
                             ExpressionAttributeNames={"#source": "source"},
                             ExpressionAttributeValues={":source": s(client.source)})

    def replace(self, client: Client) -> None:
        """Rewrite an existing client's registration (admin updates); ClientNotFound if it is gone."""
        with self.faults("replace", refused=lambda: ClientNotFound(client.client_id)):
            self.db.put_item(TableName=self.table, Item=to_item(client),
                             ConditionExpression="attribute_exists(client_id)")

    def delete(self, client: Client) -> None:
        """Remove a client as it was read, and its browser-origin entries; ClientNotFound if the record
        is gone or another source's meanwhile (an administrator's, over a cached document)."""
        values: dict[str, Any] = {":source": s(client.source)} if client.source else {}
        with self.faults("delete", refused=lambda: ClientNotFound(client.client_id)):
            self.db.delete_item(
                TableName=self.table, Key=self.key(client.client_id), ExpressionAttributeNames={"#source": "source"},
                ConditionExpression=("#source = :source" if client.source
                                     else "attribute_exists(client_id) AND attribute_not_exists(#source)"),
                **({"ExpressionAttributeValues": values} if values else {}))
        for origin in sorted(browser_origins(client)):
            with self.faults("unindex_origin"):
                self.db.update_item(
                    TableName=self.table, Key=self.key(origin_record_id(client.environment, origin)),
                    UpdateExpression="DELETE clients :c", ExpressionAttributeValues={":c": {"SS": [client.client_id]}})

    def _index_origins(self, client: Client) -> None:
        """Record the client under each of its browser origins (one UpdateItem per origin)."""
        for origin in sorted(browser_origins(client)):
            with self.faults("index_origin"):
                self.db.update_item(
                    TableName=self.table, Key=self.key(origin_record_id(client.environment, origin)),
                    UpdateExpression="ADD clients :c", ExpressionAttributeValues={":c": {"SS": [client.client_id]}})

    def origin_allowed(self, origin: str) -> bool:
        """Whether a public client of this environment has a redirect URI on `origin` (one GetItem)."""
        if not origin or len(origin) > 300:
            return False
        with self.faults("origin"):
            item = self.db.get_item(TableName=self.table,
                                    Key=self.key(origin_record_id(get_settings().stage, origin))).get("Item")
        return bool(item and item.get("clients", {}).get("SS"))

    def rotate_secret(self, client_id: str) -> str:
        """Replace the secret of a confidential client; the old one fails from the next request."""

        secret = new_secret()
        with self.faults("rotate_secret", refused=lambda: ClientNotFound(client_id)):
            # Only an existing confidential client has a secret to rotate.
            self.db.update_item(
                TableName=self.table, Key=self.key(client_id),
                UpdateExpression="SET secret_hash = :h",
                ConditionExpression="attribute_exists(client_id) AND client_type = :c",
                ExpressionAttributeValues={":h": s(hash_secret(secret)), ":c": s("confidential")},
            )
        return secret

    def list(self) -> Iterator[Client]:
        """Every client of every environment (admin listing)."""
        kwargs: dict[str, Any] = {"TableName": self.table}
        while True:
            with self.faults("list"):
                page = self.db.scan(**kwargs)
            for item in page.get("Items", []):
                if not item["client_id"]["S"].startswith(ORIGIN_PREFIX):
                    yield from_item(item)
            if not page.get("LastEvaluatedKey"):
                return
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
