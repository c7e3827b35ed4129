"""A trusted identity provider's signing keys: inline, or its JWKS URI fetched and cached within bounds.

The JWKS URI is fetched by the metadata-document fetcher, under its rules and no others: https
with a path, the host resolved once and every address checked (no private, link-local or
loopback address; loopback only on the local stack with --allow-loopback-outbound,
and then still https, with the CA SSL_CERT_FILE names), the connection pinned to the checked
address, redirects never followed, at most JWKS_MAX_BYTES of body and 4 s in all.

A warm function keeps each IdP's keys TTL_SECONDS. A `kid` the cached set does not hold
refetches the set (the IdP rotated), but at most once per REFETCH_SECONDS per IdP: a stream of
assertions naming junk kids costs one fetch per window, never one per request
(RFC 7517 4.5; OpenID Connect Core 10.1.1 describes the same rotation). At most MAX_IDPS sets
are kept; a fetch that fails leaves the previous set in use until its TTL ends.
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any, NamedTuple

from authgate import clock
from authgate.caches import cached
from authgate.clients.errors import MetadataRefused
from authgate.oauth.clients.metadata_document import client_id_url, fetcher
from authgate.settings import get_settings
from authgate.tokens.client_keys import IDP_ALGORITHMS, InvalidJwks, validate

if TYPE_CHECKING:
    from authgate.identity_providers.model import IdentityProvider

TTL_SECONDS = 300.0
REFETCH_SECONDS = 30.0
MAX_IDPS = 200
# A JWK Set of a few RSA keys is 2-5 KB; room for rotations and certificates (x5c).
JWKS_MAX_BYTES = 32 * 1024
MAX_KEYS = 20
ACCEPT = "application/jwk-set+json, application/json"


class KeysUnavailable(Exception):
    """The IdP's keys could not be had (for logs; the client is told the assertion cannot be verified)."""


class _Entry(NamedTuple):
    keys: tuple[dict[str, Any], ...]
    fetched_at: float
    tried_at: float


def fetch_jwks(uri: str) -> tuple[dict[str, Any], ...]:
    """GET the JWK Set at `uri` under the fetcher's rules; its public signing keys, or KeysUnavailable."""
    try:
        url = client_id_url.parse(uri)
        got = fetcher.fetch(url, allow_loopback=get_settings().allow_loopback_outbound,
                            limits=fetcher.Limits(max_bytes=JWKS_MAX_BYTES), accept=ACCEPT)
    except MetadataRefused as refused:
        raise KeysUnavailable(f"{refused.code}: {refused.internal or refused}") from None
    try:
        return validate(json.loads(got.body), IDP_ALGORITHMS, max_keys=MAX_KEYS)
    except (ValueError, InvalidJwks) as exc:
        raise KeysUnavailable(f"not a JWK Set of public signing keys: {str(exc)[:200]}") from None


class IdpKeyCache:
    """Each JWKS URI's keys, TTL_SECONDS old at most, refetched for an unknown kid at most every REFETCH_SECONDS."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, _Entry] = {}

    def keys(self, idp: IdentityProvider, kid: str | None) -> tuple[dict[str, Any], ...]:
        """The keys that may verify an assertion naming `kid`; KeysUnavailable when none can be had."""
        if not idp.jwks_uri:
            return idp.jwks
        now = clock.now()
        with self._lock:
            entry = self._entries.get(idp.jwks_uri)
        if entry is not None and 0 <= now - entry.fetched_at < TTL_SECONDS:
            known = kid is None or any(key.get("kid") == kid for key in entry.keys)
            if known or 0 <= now - entry.tried_at < REFETCH_SECONDS:
                return entry.keys
        try:
            keys = fetch_jwks(idp.jwks_uri)
        except KeysUnavailable:
            if entry is not None and 0 <= now - entry.fetched_at < TTL_SECONDS:
                self._put(idp.jwks_uri, entry._replace(tried_at=now))
                return entry.keys
            raise
        self._put(idp.jwks_uri, _Entry(keys, now, now))
        return keys

    def clear(self) -> None:
        """Forget every key set (a new container's state)."""
        with self._lock:
            self._entries.clear()

    def _put(self, uri: str, entry: _Entry) -> None:
        with self._lock:
            if uri not in self._entries and len(self._entries) >= MAX_IDPS:
                self._entries.clear()
            self._entries[uri] = entry


@cached
def idp_key_cache() -> IdpKeyCache:
    """The process's cache (reset with authgate.caches)."""
    return IdpKeyCache()
