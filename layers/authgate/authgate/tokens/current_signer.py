"""The current key's signer, as a warm token function holds it (RFC 7517 key rotation, tokens.rotation).

A warm function re-reads which key is current at most every SIGNER_CACHE_SECONDS; rotation's
retention rule counts this delay, so a demoted key stays published until every token it may
still sign has expired. The read is the published keys' one item (stores.signing_keys), in a
BatchGetItem that also brings the tenant the grant reads next when its cache misses: a cold
token request pays one DynamoDB call for both, and never a Scan.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate import clock
from authgate.caches import cached
from authgate.stores import tenant_cache
from authgate.stores.batch import BatchRead
from authgate.stores.faults import unavailable
from authgate.stores.signing_keys import KeyStore
from authgate.tokens.backends import backend

if TYPE_CHECKING:
    from authgate.tokens.jws import Signer

# How long a warm token function keeps signing with the key it read as current.
SIGNER_CACHE_SECONDS = 60


class SigningCache:
    """The current key's signer, re-read at most every SIGNER_CACHE_SECONDS."""

    def __init__(self) -> None:
        self.signer: Signer | None = None
        self.loaded_at = 0

    def clear(self) -> None:
        self.signer = None

    def get(self, now: int, tenant_id: str = "") -> Signer:
        if self.signer is None or now - self.loaded_at >= SIGNER_CACHE_SECONDS or now < self.loaded_at:
            store = KeyStore()
            reads = BatchRead(store.db, "keys.batch_get")
            ring = store.prefetch(reads)
            tenant = tenant_cache.prefetch(reads, tenant_id)
            reads.run()
            if tenant is not None:
                tenant.keep()
            record = store.found(ring).current()
            if record is None:
                raise unavailable("signing key", "no current signing key: run `authgate keys rotate`")
            self.signer = backend(record.backend).load_signer(record)
            self.loaded_at = now
        return self.signer


@cached
def signing_cache() -> SigningCache:
    return SigningCache()


def current_signer(tenant_id: str = "") -> Signer:
    """The signer of the current key (cached for SIGNER_CACHE_SECONDS in a warm function). When it is read,
    `tenant_id`'s record (the tenant the grant reads next) comes in the same call (stores.tenant_cache)."""
    return signing_cache().get(clock.seconds(), tenant_id)
