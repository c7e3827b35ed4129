"""A metadata-document client, from ClientsTable or fetched (draft-ietf-oauth-client-id-metadata-document-02 5, 5.2).

ClientsTable is the cache, shared by every function and container: a fresh record costs the
same one read as an administrator's client (at the token endpoint, the same BatchGetItem).
A missing or stale record is fetched again -- within the fetch budgets (budget.FetchBudget) and
one deadline for the document and its jwks_uri together -- validated, and written back with
its freshness (`refresh_at`) and a DynamoDB TTL (`expires_at`), so unused documents leave the
table by themselves. A fetch that fails is never cached (5.2) and refuses the request (5.1).

A stale record whose refetch authgate's own budgets refuse is served as it is for one more of
its lifetimes (STALE): a party that spends a host's or the deployment's budget does not lock out
the clients authgate already holds. A document its host refuses is never served stale.

With the deployment switch off (ClientIdMetadataDocuments=false) nothing is fetched: an https
client_id is then an unknown client like any other. A record an administrator wrote under an
https id (draft 7.2, pre-registration) is used as it is, never fetched.
"""

from __future__ import annotations

import ssl
import time

from authgate import clock
from authgate.clients.errors import ClientExists, MetadataRefused
from authgate.clients.model import DOCUMENT_SOURCE, Client
from authgate.oauth.clients import recorded
from authgate.oauth.clients.metadata_document import (
    budget,
    client_id_url,
    document,
    fetcher,
    freshness,
)
from authgate.settings import Settings, get_settings
from authgate.stores.clients import ClientStore

# A cached document's record outlives its freshness this long before DynamoDB's TTL removes it.
RECORD_GRACE = 7 * 86400
JWKS_MAX_BYTES = 16 * 1024


def is_metadata_client(client_id: str) -> bool:
    """Whether this deployment resolves `client_id` as a Client ID Metadata Document URL."""
    return client_id_url.is_client_id_url(client_id) and get_settings().client_metadata_documents


def usable(client: Client | None, now: int) -> bool:
    """A record that needs no fetch: an administrator's, or a document still fresh (5.2)."""
    return client is not None and (client.source != DOCUMENT_SOURCE or now < client.refresh_at)


def servable_stale(client: Client, now: int, ceiling: int) -> bool:
    """A stale document's record may still be served (when authgate's own budgets refuse its
    refetch) for as long again as it was fresh: its lifetime is refresh_at - created_at (5.2),
    never more than the cache's `ceiling`."""
    return now < client.refresh_at + max(0, min(ceiling, client.refresh_at - client.created_at))


class MetadataClients:
    """Resolves metadata-document clients for a request from `source` (its address); the fetch's
    seams (resolver, TLS context, budgets) are injectable."""

    def __init__(self, store: ClientStore | None = None, *, source: str = "",
                 resolver: fetcher.Resolver | None = None, context: ssl.SSLContext | None = None,
                 settings: Settings | None = None, budgets: budget.FetchBudget | None = None) -> None:
        self._store = store or ClientStore()
        self._source = source
        self._resolver = resolver or fetcher.system_resolver
        self._context = context
        self._settings = settings or get_settings()
        self._budgets = budgets or budget.FetchBudget(self._settings)

    def get(self, client_id: str, any_environment: bool = False) -> Client | None:
        """The client (one GetItem when cached and fresh). An administrator's record under this id
        is returned as ClientStore.get would (draft 7.2), never fetched over."""
        client = self._store.get(client_id, any_environment=True)
        if client is not None and client.source != DOCUMENT_SOURCE:
            return ClientStore.visible(client, any_environment)
        return self.refreshed(client_id, client)

    def refreshed(self, client_id: str, cached: Client | None) -> Client | None:
        """`cached` when usable, else the document fetched and validated now (and cached); a stale
        `cached` when authgate's own budgets refuse the refetch, within servable_stale."""
        now = clock.seconds()
        if usable(cached, now) or not self._settings.client_metadata_documents:
            return cached
        try:
            return self.fetch(client_id, refresh=cached is not None)
        except MetadataRefused as exc:
            if (exc.code == "client_metadata_rate_limited" and cached is not None
                    and servable_stale(cached, now, self._settings.client_metadata_max_cache)):
                return cached
            raise

    def fetch(self, client_id: str, refresh: bool = False) -> Client:
        """Fetch, validate and cache the document at `client_id` (a `refresh` of a record held, or a
        new one); MetadataRefused when any step fails."""
        url = client_id_url.parse(client_id)
        kind = budget.REFRESH if refresh else budget.NEW
        self._budgets.document(kind, url.host, self._source)
        # One deadline for the document and the keys its jwks_uri names: the request waits 4 s at most.
        deadline = time.monotonic() + fetcher.DEFAULT_LIMITS.total
        got = self._get(url, fetcher.DEFAULT_LIMITS, deadline)
        doc = document.parse(url, got.body)
        now = clock.seconds()
        s = self._settings
        ttl = freshness.lifetime(got.cache_control, got.expires, got.date, now,
                                 s.client_metadata_min_cache, s.client_metadata_max_cache)

        def keys(jwks_uri: str) -> bytes:
            """A private_key_jwt client's jwks_uri, under the same rules (8.6), host budget and deadline."""
            keys_url = client_id_url.parse(jwks_uri)
            self._budgets.host(kind, keys_url.host)
            return self._get(keys_url, fetcher.Limits(max_bytes=JWKS_MAX_BYTES), deadline).body

        client = document.to_client(url, doc, stage=s.stage, now=now, refresh_at=now + ttl, fetch_keys=keys)
        client = client._replace(expires_at=client.refresh_at + RECORD_GRACE)
        try:
            self._store.save(client)
        except ClientExists:
            # An administrator's client holds this id (of another environment, or written meanwhile).
            raise MetadataRefused("client_metadata_not_allowed", "This client_id is registered on this server "
                                  "by an administrator; it is not resolved as a metadata document.") from None
        if not refresh:
            # A metadata-document client is registered by its first fetch (its record is kept from here on).
            recorded.record("client.registered", client)
        return client

    def _get(self, url: client_id_url.ClientIdUrl, limits: fetcher.Limits, deadline: float) -> fetcher.Fetched:
        return fetcher.fetch(url, resolver=self._resolver, context=self._context, limits=limits, deadline=deadline,
                             allow_loopback=self._settings.allow_loopback_outbound)
