"""Finding a client, whatever its source (RFC 6749 2.2; RFC 7591 3; draft-ietf-oauth-client-id-metadata-document-02 5).

One lookup for every flow, as node-oidc-provider's `Client.find` reads its configured clients,
then its adapter, then a metadata document, and builds each through the same factory
(lib/models/client.js, lib/helpers/client_id_metadata_document.js). ClientsTable holds an
administrator's clients, the dynamically registered ones (RFC 7591, `source` "registration") and
the cached metadata documents (`source` "metadata_document"); an https client_id that this
deployment resolves as a document, and whose record is missing or stale, is fetched
(oauth.clients.metadata_document.resolver). Flows get a `Client` and never look at the shape of its id.

A document is fetched only where a flow asks for it (`fetch_documents=True`: the authorization,
token and PAR endpoints, which start or finish a code flow); elsewhere (revocation,
introspection, registration management) a client known by a document is its record as it
stands, and one never fetched is an unknown client. A document that cannot be used raises
authgate.clients.errors.MetadataRefused, which failures.ERRORS renders on the request's surface.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from authgate.stores.clients import ClientStore

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.oauth.clients.metadata_document.resolver import MetadataClients
    from authgate.stores.batch import BatchRead, Pending

# What every Client Identifier URL starts with (draft 3), compared case-insensitively: an id that
# does not is never a document, and its lookup never imports the resolver.
URL_PREFIX = "https://"


class ClientLookup:
    """The clients a request from `source_ip` may name; documents are fetched for it when `fetch_documents`."""

    def __init__(self, source_ip: str = "", *, fetch_documents: bool = False, store: ClientStore | None = None) -> None:
        self._source_ip = source_ip
        self._fetch_documents = fetch_documents
        self._store = store or ClientStore()

    def find(self, client_id: str, *, any_environment: bool = False) -> Client | None:
        """The client (one GetItem; a document fetched when its record is missing or stale), or None
        when unknown, expired, or (unless `any_environment`) registered for another environment."""
        documents = self._documents(client_id)
        if documents is not None:
            return documents.get(client_id, any_environment)
        return self._store.get(client_id, any_environment=any_environment)

    def read_with(self, client_id: str, extra: dict[str, list[dict[str, Any]]]
                  ) -> tuple[Client | None, dict[str, list[dict[str, Any]]]]:
        """The client's record and other items (the failure counters) in ONE BatchGetItem (stores.clients);
        `resolved` makes the record the client once the caller has judged the other items."""
        return self._store.get_with(client_id, extra)

    def prefetch(self, reads: BatchRead, client_id: str) -> Pending | None:
        """Register the client's record in a request's batch read (`found` once it ran)."""
        return self._store.prefetch(reads, client_id)

    def found(self, client_id: str, pending: Pending | None) -> Client | None:
        """The client whose record a `prefetch` read (as `find` would answer: a stale document fetched again)."""
        return self.resolved(client_id, self._store.found(pending))

    def resolved(self, client_id: str, record: Client | None) -> Client | None:
        """The client whose record `read_with` read: that record, or a stale document's fetched again."""
        documents = self._documents(client_id)
        return record if documents is None else documents.refreshed(client_id, record)

    def _documents(self, client_id: str) -> MetadataClients | None:
        """The document resolver, when `client_id` is to be resolved as a metadata document."""
        if not self._fetch_documents or client_id[:len(URL_PREFIX)].lower() != URL_PREFIX:
            return None
        # Imported for an https client_id only: the resolver, its fetcher, validation and budgets are
        # part of no cold start of an administrator's client (docs/decisions.md, measured shortcuts).
        from authgate.oauth.clients.metadata_document.resolver import (
            MetadataClients,
            is_metadata_client,
        )

        return MetadataClients(self._store, source=self._source_ip) if is_metadata_client(client_id) else None
