"""How many metadata documents authgate fetches, and for whom (draft-ietf-oauth-client-id-metadata-document-02 8.6).

Anyone can make authgate fetch a URL, so fetches are counted per minute (LimitsTable, one
conditional UpdateItem per budget) in budgets that keep parties apart:

- a NEW document (no record of it is held) draws on the requesting address's budget
  (`client_metadata_source_limit`), then its host's budget of new documents
  (`client_metadata_fetch_limit`), then the deployment's (`client_metadata_deployment_limit`);
- a REFRESH of a document authgate holds (its record is stale, 5.2) draws on its host's budget of
  refreshes and the deployment's, never on a budget a new URL can spend.

So junk URLs on a host -- documents that will fail -- spend their requester's budget and the
budget of new documents, never the refreshes the host's valid clients need; and whatever the
route throttles let through, at most the deployment's budgets of fetches start a minute. A
refusal is client_metadata_rate_limited (429, Retry-After); the resolver serves a held record a
while longer instead (resolver.STALE). Fails open, like the API limiter, when the table is down.
"""

from __future__ import annotations

from typing import Any, Literal

from authgate import clock
from authgate.limits import degraded
from authgate.limits.counters import digest
from authgate.limits.window import window_at
from authgate.oauth.client_metadata.errors import MetadataRefused
from authgate.settings import Settings
from authgate.stores.limits import LimitReached, LimitsStore, LimitsUnavailable

WINDOW = 60
Kind = Literal["new", "refresh"]
NEW: Kind = "new"
REFRESH: Kind = "refresh"


class FetchBudget:
    """Counts a fetch in each budget it draws on; MetadataRefused(client_metadata_rate_limited) when one is spent."""

    def __init__(self, settings: Settings, dynamodb: Any = None) -> None:
        self._settings = settings
        self._dynamodb = dynamodb

    def document(self, kind: Kind, host: str, source: str) -> None:
        """One fetch of a client's document from `host`, asked for by `source` (an IP address)."""
        s = self._settings
        if kind == NEW:
            self._count(f"cimd-source#{digest(source or 'unknown')}", "fetches", s.client_metadata_source_limit,
                        "Too many new client metadata documents were asked for from this address")
        self.host(kind, host)
        self._count("cimd-deployment", kind, s.client_metadata_deployment_limit,
                    "authgate is fetching as many client metadata documents as it allows")

    def host(self, kind: Kind, host: str) -> None:
        """One fetch from `host` (a document, or the keys its jwks_uri names)."""
        self._count(f"cimd-{kind}#{digest(host)}", "fetches", self._settings.client_metadata_fetch_limit,
                    f"Too many fetches of client metadata documents from {host}")

    def _count(self, partition: str, counter: str, quota: int, refusal: str) -> None:
        now = clock.now()
        window = window_at(now, WINDOW, partition)
        try:
            LimitsStore(self._dynamodb).count(f"{partition}#{window.start}", {counter: quota}, window.end + 3600)
        except LimitReached:
            retry = window.reset_after(now)
            raise MetadataRefused("client_metadata_rate_limited", f"{refusal}; retry after {retry} seconds.",
                                  internal=partition, retry_after=retry) from None
        except LimitsUnavailable as exc:
            degraded.record("client-metadata-fetch", exc.internal)
