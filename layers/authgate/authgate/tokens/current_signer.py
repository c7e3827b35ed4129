"""The current keys' signers, as a warm token function holds them (RFC 7517 key rotation, tokens.rotation).

A warm function re-reads which keys are current at most every SIGNER_CACHE_SECONDS; rotation's
retention rule counts this delay, so a demoted key stays published until every token it may
still sign has expired. The read is the published keys' one item (stores.signing_keys), in a
BatchGetItem that also brings the tenant the grant reads next when its cache misses: a cold
token request pays one DynamoDB call for both, and never a Scan. The item holds the current key
of every algorithm (the access tokens', and RS256 for ID tokens: tokens.rotation), so an ID
token of another algorithm costs no DynamoDB call either; only its private key is loaded once
(the local backend: one Secrets Manager read per key and warm process).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate import clock
from authgate.caches import cached
from authgate.settings import get_settings
from authgate.stores import tenant_cache
from authgate.stores.batch import BatchRead
from authgate.stores.faults import unavailable
from authgate.stores.signing_keys import KeyRing, KeyStore
from authgate.tokens.backends import backend

if TYPE_CHECKING:
    from authgate.tokens.jws import Signer

# How long a warm token function keeps signing with the keys it read as current.
SIGNER_CACHE_SECONDS = 60


class SigningCache:
    """The current keys' signers by algorithm, the keys re-read at most every SIGNER_CACHE_SECONDS."""

    def __init__(self) -> None:
        self.ring: KeyRing | None = None
        self.signers: dict[str, Signer] = {}
        self.loaded_at = 0

    def clear(self) -> None:
        self.ring = None
        self.signers = {}

    def get(self, now: int, tenant_id: str = "", alg: str = "") -> Signer:
        """The signer of the current `alg` key (the access tokens' algorithm when empty). Until a key of
        `alg` signs (a stack that just gained the algorithm: its key is published first, tokens.rotation),
        the access tokens' current key signs instead."""
        if self.ring is None or now - self.loaded_at >= SIGNER_CACHE_SECONDS or now < self.loaded_at:
            store = KeyStore()
            reads = BatchRead(store.db, "keys.batch_get")
            ring = store.prefetch(reads)
            tenant = tenant_cache.prefetch(reads, tenant_id)
            reads.run()
            if tenant is not None:
                tenant.keep()
            self.ring, self.signers, self.loaded_at = store.found(ring), {}, now
        own = get_settings().signing_alg
        alg = alg or own
        signer = self.signers.get(alg)
        if signer is None:
            record = self.ring.current(alg) or self.ring.current(own) or self.ring.current()
            if record is None:
                raise unavailable("signing key", "no current signing key: run `authgate keys rotate`")
            signer = self.signers[alg] = backend(record.backend).load_signer(record)
        return signer


@cached
def signing_cache() -> SigningCache:
    return SigningCache()


def current_signer(tenant_id: str = "", alg: str = "") -> Signer:
    """The signer of the current key of `alg` (the access tokens' algorithm when empty), cached for
    SIGNER_CACHE_SECONDS in a warm function. When the keys are read, `tenant_id`'s record (the tenant
    the grant reads next) comes in the same call (stores.tenant_cache)."""
    return signing_cache().get(clock.seconds(), tenant_id, alg)
