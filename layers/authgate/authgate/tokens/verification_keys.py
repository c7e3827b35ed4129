"""The published verification keys a resource checks signatures with, by kid, cached warm.

Reloaded every `jwks_max_age` (the overlap rule of tokens.rotation guarantees a new key is
published that long before it signs) and, for an unknown kid, at most once per
UNKNOWN_KID_REFRESH_SECONDS, so junk kids cannot turn into a DynamoDB read per request. A
previous key verifies nothing from its `retires_at` on, even from an older cached list.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from authgate.stores.signing_keys import PREVIOUS
from authgate.tokens import jwk

if TYPE_CHECKING:
    from authgate.stores.signing_keys import KeyRecord

# Never none, never HS*: only the asymmetric algorithms this server signs with.
ALLOWED_ALGS = frozenset({"RS256", "ES256"})
UNKNOWN_KID_REFRESH_SECONDS = 10


class VerificationKey(NamedTuple):
    kid: str
    alg: str
    key: Any  # a cryptography public key
    # A previous key's retirement time is known in advance: from then on it verifies nothing,
    # even while an older copy of the key list is still cached.
    retires_at: int = 0


class KeyCache:
    """Published verification keys by kid, reloaded every `max_age` and, for an unknown kid,
    at most once per `refresh_interval` (bounded: junk kids cannot flood the keys table)."""

    def __init__(self, load: Callable[[], list[KeyRecord]], max_age: int,
                 refresh_interval: int = UNKNOWN_KID_REFRESH_SECONDS) -> None:
        self._load = load
        self._max_age = max_age
        self._refresh_interval = refresh_interval
        self._keys: dict[str, VerificationKey] = {}
        self._loaded_at: int | None = None
        self._lock = threading.Lock()
        self.loads = 0

    def get(self, kid: str, now: int) -> VerificationKey | None:
        with self._lock:
            stale = self._loaded_at is None or now - self._loaded_at >= self._max_age or now < self._loaded_at
            if stale or (kid not in self._keys and now - (self._loaded_at or 0) >= self._refresh_interval):
                self._reload(now)
            key = self._keys.get(kid)
            return None if key is None or (key.retires_at and now >= key.retires_at) else key

    def _reload(self, now: int) -> None:
        keys = {}
        for record in self._load():
            if record.alg in ALLOWED_ALGS:
                keys[record.kid] = VerificationKey(record.kid, record.alg, jwk.public_key(json.loads(record.public_jwk)),
                                                   record.retires_at if record.state == PREVIOUS else 0)
        self._keys, self._loaded_at = keys, now
        self.loads += 1
