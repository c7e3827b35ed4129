"""ClientsTable: registered OAuth clients (RFC 6749 §2) and the browser-origin index beside them.

The model and its rules are authgate.clients; this module reads and writes them. Reads are
strongly consistent so a rotated-out secret stops working at once. Every write of a client is
one PutItem of its whole item (clients.model.to_item) under the condition that says which
record it may replace: none (a new client), one of the same source, the one that exists.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from typing import Any

from authgate import clock, records
from authgate.clients.errors import ClientExists, ClientNotFound
from authgate.clients.model import (
    DOCUMENT_SOURCE,
    FIELD_NAMES,
    MAX_CLIENT_ID_LENGTH,
    Client,
    from_item,
    hash_secret,
    new_secret,
    registered,
    to_item,
)
from authgate.clients.origins import ORIGIN_PREFIX, browser_origins, origin_record_id
from authgate.records import s, ss
from authgate.settings import get_settings
from authgate.stores.base import TableStore
from authgate.stores.batch import BatchRead, Pending

_SOURCE = {"#source": "source"}


def key(client_id: str) -> dict[str, Any]:
    return {"client_id": s(client_id)}


class ClientStore(TableStore):
    """Reads and writes ClientsTable; a client of another environment reads as unknown."""

    table_setting = "clients"

    def get(self, client_id: str, *, any_environment: bool = False) -> Client | None:
        """The client, or None when unknown or registered for another environment (contract 5.3)."""
        if not client_id or len(client_id) > MAX_CLIENT_ID_LENGTH or client_id.startswith(ORIGIN_PREFIX):
            return None
        item = self.find(key(client_id))
        return self.visible(from_item(item), any_environment) if item else None

    def get_with(self, client_id: str, extra: dict[str, list[dict[str, Any]]]
                 ) -> tuple[Client | None, dict[str, list[dict[str, Any]]]]:
        """The client plus other items (e.g. limiter counters) in ONE strongly consistent BatchGetItem.

        Returns the client (None if unknown or of another environment) and the other tables'
        items by table name.
        """
        reads = BatchRead(self.db, "clients.batch_get")
        others = {table: [reads.add(table, k) for k in keys] for table, keys in extra.items()}
        client = self.prefetch(reads, client_id)
        reads.run()
        return (self.found(client),
                {table: [item for p in pending if (item := p.item) is not None] for table, pending in others.items()})

    def prefetch(self, reads: BatchRead, client_id: str) -> Pending | None:
        """Register the client's record in the request's batch read (None: an id no client can have)."""
        if not client_id or len(client_id) > MAX_CLIENT_ID_LENGTH or client_id.startswith(ORIGIN_PREFIX):
            return None
        return reads.add(self.table, key(client_id))

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

    def create(self, *, secret: str | None = None, **values: Any) -> tuple[Client, str | None]:
        """Register a client from its fields by name (clients.model.FIELDS; absent ones take their defaults,
        None is not given); returns it and its plaintext secret (confidential only), shown ONCE.

        `secret` lets a local seed fix a known demo secret; otherwise one is generated. A
        private_key_jwt client gets no secret: it proves itself with its registered keys.
        """
        unknown = set(values) - FIELD_NAMES
        if unknown:
            raise TypeError(f"unknown client fields: {sorted(unknown)}")
        client, plaintext = registered(values, stage=get_settings().stage, now=clock.seconds(), secret=secret)
        # A cached metadata document under this id gives way (draft-ietf-oauth-client-id-metadata-
        # document-02 7.2, pre-registration): the administrator's record wins, and is never fetched over.
        self._write(client, "create", "attribute_not_exists(client_id) OR #source = :source", ClientExists,
                    source=DOCUMENT_SOURCE)
        self._index_origins(client)
        return client, plaintext

    def put(self, client: Client) -> None:
        """Write a client as given (seed loading; replaces an existing record)."""
        self.upsert(to_item(client))
        self._index_origins(client)

    def create_record(self, client: Client) -> None:
        """Write a new self-registered client as it is (RFC 7591); ClientExists if the id is taken."""
        self._write(client, "create", "attribute_not_exists(client_id)", ClientExists)

    def save(self, client: Client) -> None:
        """Write a self-registered client's record as it is (a metadata document's cache entry):
        no origin index, whose records would outlive it. Never over a record of another source (an
        administrator's client under the same id): ClientExists then."""
        self._write(client, "save", "attribute_not_exists(client_id) OR #source = :source", ClientExists,
                    source=client.source)

    def replace(self, client: Client) -> None:
        """Rewrite an existing client's registration (admin updates); ClientNotFound if it is gone."""
        self._write(client, "replace", "attribute_exists(client_id)", ClientNotFound)

    def _write(self, client: Client, operation: str, condition: str, refused: type[Exception], *,
               source: str | None = None) -> None:
        """One PutItem of the client's whole item where `condition` holds (`#source = :source`: `source`)."""
        self.upsert(to_item(client), operation, condition=condition,
                    names=_SOURCE if source is not None else None,
                    values={":source": s(source)} if source is not None else None,
                    refused=lambda: refused(client.client_id))

    def delete(self, client: Client) -> None:
        """Remove a client as it was read, and its browser-origin entries; ClientNotFound if the record
        is gone or another source's meanwhile (an administrator's, over a cached document)."""
        self.destroy(key(client.client_id), names=_SOURCE,
                     condition=("#source = :source" if client.source
                                else "attribute_exists(client_id) AND attribute_not_exists(#source)"),
                     values={":source": s(client.source)} if client.source else None,
                     refused=lambda: ClientNotFound(client.client_id))
        for origin in sorted(browser_origins(client)):
            with self.faults("unindex_origin"):
                self.db.update_item(
                    TableName=self.table, Key=key(origin_record_id(client.environment, origin)),
                    UpdateExpression="DELETE clients :c", ExpressionAttributeValues={":c": ss([client.client_id])})

    def _index_origins(self, client: Client) -> None:
        """Record the client under each of its browser origins (one UpdateItem per origin)."""
        for origin in sorted(browser_origins(client)):
            with self.faults("index_origin"):
                self.db.update_item(
                    TableName=self.table, Key=key(origin_record_id(client.environment, origin)),
                    UpdateExpression="ADD clients :c", ExpressionAttributeValues={":c": ss([client.client_id])})

    def origin_allowed(self, origin: str) -> bool:
        """Whether a public client of this environment has a redirect URI on `origin` (one GetItem)."""
        if not origin or len(origin) > 300:
            return False
        item = self.find(key(origin_record_id(get_settings().stage, origin)), "origin", consistent=False)
        return bool(item and records.from_item(ORIGIN_FIELDS, item)["clients"])

    def rotate_secret(self, client_id: str) -> str:
        """Replace the secret of a confidential client; the old one fails from the next request."""

        secret = new_secret()
        with self.faults("rotate_secret", refused=lambda: ClientNotFound(client_id)):
            # Only an existing confidential client has a secret to rotate.
            self.db.update_item(
                TableName=self.table, Key=key(client_id),
                UpdateExpression="SET secret_hash = :h",
                ConditionExpression="attribute_exists(client_id) AND client_type = :c",
                ExpressionAttributeValues={":h": s(hash_secret(secret)), ":c": s("confidential")},
            )
        return secret

    def list(self) -> Iterator[Client]:
        """Every client of every environment (admin listing)."""
        return (from_item(item) for item in self.scan("list", consistent=False)
                if not records.string(item, "client_id").startswith(ORIGIN_PREFIX))

    def of_tenant(self, tenant_id: str, *, after: str = "", limit: int = 20) -> tuple[builtins.list[Client], str]:
        """Up to `limit` clients of a tenant, of every source, in the table's own order after the client `after` (""
        from the first); (clients, the client id to continue after, "" when none is left). A filtered Scan (the
        console's listing, never a request's path): it reads the table until a page is full."""
        kwargs: dict[str, Any] = {"TableName": self.table, "FilterExpression": "tenant_id = :t",
                                  "ExpressionAttributeValues": {":t": s(tenant_id)}}
        if after:
            kwargs["ExclusiveStartKey"] = key(after)
        now, found = clock.seconds(), builtins.list[Client]()
        while len(found) <= limit:  # one more than asked for: whether another page follows
            with self.faults("of_tenant"):
                page = self.db.scan(**kwargs)
            found += [c for c in map(from_item, page.get("Items", [])) if not c.expired(now)]
            if "LastEvaluatedKey" not in page:
                break
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return found[:limit], found[limit - 1].client_id if len(found) > limit else ""


# An origin record (clients.origins): its key and the ids of the public clients on that origin.
ORIGIN_FIELDS = (records.Field("client_id", "S"), records.Field("clients", "SET", ()))
