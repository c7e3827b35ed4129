"""An identity provider's signing keys: inline, or a JWKS URI fetched and cached within bounds.

A JWKS URI (the record's, or the one an OpenID Provider's discovery document names) is fetched
under authgate.outbound's rules and no others (outbound.documents: https, or loopback http on the
local stack only, under --allow-loopback-outbound; the host resolved once and every address checked -- no private, link-local or
loopback address outside the local stack's exception --, the connection pinned to the checked
address, redirects never followed, at most JWKS_MAX_BYTES of body and 4 s in all). Keys for
encryption, or for an algorithm no IdP signs with here, are left out (Keycloak and others publish
both); what is left must be public signing keys (tokens.client_keys).

A warm function keeps each URI's keys TTL_SECONDS. A `kid` the cached set does not hold
refetches the set (the IdP rotated), but at most once per REFETCH_SECONDS per URI: a stream of
tokens naming junk kids costs one fetch per window, never one per request (RFC 7517 4.5;
OpenID Connect Core 10.1.1 describes the same rotation). At most MAX_IDPS sets are kept; a fetch
that fails leaves the previous set in use until its TTL ends.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, NamedTuple

from authgate import clock
from authgate.caches import cached
from authgate.outbound.connection import Limits
from authgate.outbound.documents import Unavailable, fetch_json
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
    """GET the JWK Set at `uri` under outbound's rules; its public signing keys, or KeysUnavailable."""
    try:
        document = fetch_json(uri, limits=Limits(max_bytes=JWKS_MAX_BYTES), accept=ACCEPT)
    except Unavailable as exc:
        raise KeysUnavailable(f"{uri}: {exc.internal}") from None
    try:
        return validate(_signing_keys(document), IDP_ALGORITHMS, max_keys=MAX_KEYS)
    except InvalidJwks as exc:
        raise KeysUnavailable(f"not a JWK Set of public signing keys: {str(exc)[:200]}") from None


def _signing_keys(document: dict[str, Any]) -> Any:
    """The set without the keys that cannot verify a signature here (`use` enc, or another algorithm)."""
    keys = document.get("keys")
    if not isinstance(keys, list):
        return document
    return {"keys": [key for key in keys if not isinstance(key, dict)
                     or (key.get("use", "sig") == "sig" and key.get("alg", "RS256") in IDP_ALGORITHMS)]}


class IdpKeyCache:
    """Each JWKS URI's keys, TTL_SECONDS old at most, refetched for an unknown kid at most every REFETCH_SECONDS."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, _Entry] = {}

    def keys(self, idp: IdentityProvider, kid: str | None) -> tuple[dict[str, Any], ...]:
        """The keys that may verify an assertion naming `kid`; KeysUnavailable when none can be had."""
        if not idp.jwks_uri:
            return idp.jwks
        return self.keys_at(idp.jwks_uri, kid)

    def keys_at(self, uri: str, kid: str | None) -> tuple[dict[str, Any], ...]:
        """The keys at `uri` that may verify a JWS naming `kid`; KeysUnavailable when none can be had."""
        now = clock.now()
        with self._lock:
            entry = self._entries.get(uri)
        if entry is not None and 0 <= now - entry.fetched_at < TTL_SECONDS:
            known = kid is None or any(key.get("kid") == kid for key in entry.keys)
            if known or 0 <= now - entry.tried_at < REFETCH_SECONDS:
                return entry.keys
        try:
            keys = fetch_jwks(uri)
        except KeysUnavailable:
            if entry is not None and 0 <= now - entry.fetched_at < TTL_SECONDS:
                self._put(uri, entry._replace(tried_at=now))
                return entry.keys
            raise
        self._put(uri, _Entry(keys, now, now))
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
