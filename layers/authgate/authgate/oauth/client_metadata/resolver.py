"""A metadata-document client, from ClientsTable or fetched (draft-ietf-oauth-client-id-metadata-document-02 5, 5.2).

ClientsTable is the cache, shared by every function and container: a fresh record costs the
same one read as an administrator's client (at the token endpoint, the same BatchGetItem).
A missing or stale record is fetched again -- under the per-host fetch limit (LimitsTable, one
UpdateItem) -- validated, and written back with its freshness (`refresh_at`) and a DynamoDB TTL
(`expires_at`), so unused documents leave the table by themselves. A fetch that fails is never
cached (5.2) and refuses the request (5.1).

With the deployment switch off (ClientIdMetadataDocuments=false) nothing is fetched: an https
client_id is then an unknown client like any other. A record an administrator wrote under an
https id (draft 7.2, pre-registration) is used as it is, never fetched.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable
from typing import Any

from authgate import clock
from authgate.clients.model import Client
from authgate.oauth.client_metadata import client_id_url, document, fetcher, freshness
from authgate.oauth.client_metadata.errors import MetadataRefused
from authgate.settings import Settings, get_settings
from authgate.stores.clients import ClientStore
from authgate.stores.exceptions import ClientExists

# A cached document's record outlives its freshness this long before DynamoDB's TTL removes it.
RECORD_GRACE = 7 * 86400
FETCH_WINDOW = 60
JWKS_MAX_BYTES = 16 * 1024


def is_metadata_client(client_id: str) -> bool:
    """Whether this deployment resolves `client_id` as a Client ID Metadata Document URL."""
    return client_id_url.is_client_id_url(client_id) and get_settings().client_metadata_documents


def usable(client: Client | None, now: int) -> bool:
    """A record that needs no fetch: an administrator's, or a document still fresh (5.2)."""
    return client is not None and (client.source != document.SOURCE or now < client.refresh_at)


class MetadataClients:
    """Resolves metadata-document clients; the fetch's seams (resolver, TLS context) are injectable."""

    def __init__(self, store: ClientStore | None = None, *, resolver: fetcher.Resolver | None = None,
                 context: ssl.SSLContext | None = None, settings: Settings | None = None,
                 limiter: Callable[[str], None] | None = None) -> None:
        self._store = store or ClientStore()
        self._resolver = resolver or fetcher.system_resolver
        self._context = context
        self._settings = settings or get_settings()
        self._limit = limiter or fetch_limit

    def get(self, client_id: str, any_environment: bool = False) -> Client | None:
        """The client (one GetItem when cached and fresh). An administrator's record under this id
        is returned as ClientStore.get would (draft 7.2), never fetched over."""
        client = self._store.get(client_id, any_environment=True)
        if client is not None and client.source != document.SOURCE:
            return ClientStore.visible(client, any_environment)
        return self.refreshed(client_id, client)

    def refreshed(self, client_id: str, cached: Client | None) -> Client | None:
        """`cached` when usable, else the document fetched and validated now (and cached)."""
        if usable(cached, clock.seconds()) or not self._settings.client_metadata_documents:
            return cached
        return self.fetch(client_id)

    def fetch(self, client_id: str) -> Client:
        """Fetch, validate and cache the document at `client_id`; MetadataRefused when any step fails."""
        url = client_id_url.parse(client_id)
        self._limit(url.host)
        got = self._get(url, fetcher.DEFAULT_LIMITS)
        doc = document.parse(url, got.body)
        now = clock.seconds()
        s = self._settings
        ttl = freshness.lifetime(got.cache_control, got.expires, got.date, now,
                                 s.client_metadata_min_cache, s.client_metadata_max_cache)
        client = document.to_client(url, doc, stage=s.stage, now=now, refresh_at=now + ttl,
                                    fetch_keys=self._keys)
        client = client._replace(expires_at=client.refresh_at + RECORD_GRACE)
        try:
            self._store.save(client)
        except ClientExists:
            # An administrator's client holds this id (of another environment, or written meanwhile).
            raise MetadataRefused("client_metadata_not_allowed", "This client_id is registered on this server "
                                  "by an administrator; it is not resolved as a metadata document.") from None
        return client

    def _get(self, url: client_id_url.ClientIdUrl, limits: fetcher.Limits) -> fetcher.Fetched:
        return fetcher.fetch(url, resolver=self._resolver, context=self._context, limits=limits,
                             allow_loopback=self._settings.allow_loopback_client_metadata)

    def _keys(self, jwks_uri: str) -> bytes:
        """A private_key_jwt client's jwks_uri, under the same rules (8.6) and limit as the document."""
        url = client_id_url.parse(jwks_uri)
        self._limit(url.host)
        return self._get(url, fetcher.Limits(max_bytes=JWKS_MAX_BYTES)).body


def fetch_limit(host: str, dynamodb: Any = None) -> None:
    """Count one fetch from `host` (LimitsTable, one UpdateItem); MetadataRefused when over the quota.

    Its own limit, apart from the API limits: a burst of authorization requests naming one host
    cannot make authgate hammer it. Fails open, like the API limiter, when the table is down.
    """
    from authgate.limits import degraded
    from authgate.limits.counters import digest
    from authgate.limits.window import window_at
    from authgate.stores.limits import LimitReached, LimitsStore, LimitsUnavailable

    now = clock.now()
    window = window_at(now, FETCH_WINDOW, f"cimd:{host}")
    try:
        LimitsStore(dynamodb).count(f"cimdfetch#{digest(host)}#{window.start}",
                                    {"fetches": get_settings().client_metadata_fetch_limit}, window.end + 3600)
    except LimitReached:
        retry = window.reset_after(now)
        raise MetadataRefused("client_metadata_rate_limited",
                              f"Too many fetches of client metadata documents from {host}; retry after "
                              f"{retry} seconds.", retry_after=retry) from None
    except LimitsUnavailable as exc:
        degraded.record("client-metadata-fetch", exc.internal)
