"""Trusted identity providers cached for 60 s across warm invocations (the ID-JAG grant's hot path).

An ID-JAG names its issuer; the token endpoint finds that IdP within the client's tenant on every
such request, and the cache keeps the read out of the per-request DynamoDB budget. A change
(`authgate idps create|update|delete`) reaches a warm function within the TTL. Failures are
never cached.
"""

from __future__ import annotations

from authgate import clock
from authgate.caches import BoundedCache, cached
from authgate.identity_providers.model import IdentityProvider
from authgate.stores.identity_providers import IdentityProviderStore

TTL_SECONDS = 60.0
# Bounded: junk issuers in forged assertions may fill it, never grow it.
MAX_ENTRIES = 1_000


@cached
def _cache() -> BoundedCache[tuple[str, str], tuple[IdentityProvider | None]]:
    return BoundedCache(MAX_ENTRIES, ttl=TTL_SECONDS)


def trusted_idp(tenant_id: str, issuer: str) -> IdentityProvider | None:
    """IdentityProviderStore().get(tenant_id, issuer), at most TTL_SECONDS old (by authgate.clock)."""
    now = clock.now()
    hit = _cache().get((tenant_id, issuer), now)
    if hit is not None:
        return hit[0]
    idp = IdentityProviderStore().get(tenant_id, issuer)
    _cache().put((tenant_id, issuer), (idp,), now)
    return idp
