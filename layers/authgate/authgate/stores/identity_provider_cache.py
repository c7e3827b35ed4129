"""Trusted identity providers cached for 60 s across warm invocations (the ID-JAG grant's hot path, sign-in).

An ID-JAG names its issuer; the token endpoint finds that IdP within the client's tenant on every
such request, and the cache keeps the read out of the per-request DynamoDB budget. A sign-in page
offers a tenant's sign-in options (stores.sign_in_options), cached the same way; a page that reads
its tenant in a batch reads them in it on a miss (`prefetch_options`). A change (`authgate idps
create|update|delete`) reaches a warm function within the TTL. Failures are never cached.
"""

from __future__ import annotations

from typing import NamedTuple

from authgate import clock
from authgate.caches import BoundedCache, cached
from authgate.identity_providers.model import IdentityProvider
from authgate.identity_providers.sign_in_options import SignInOption
from authgate.stores.batch import BatchRead, Pending
from authgate.stores.identity_providers import IdentityProviderStore
from authgate.stores.sign_in_options import SignInOptionStore, options_in

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


@cached
def _options() -> BoundedCache[str, tuple[SignInOption, ...]]:
    return BoundedCache(MAX_ENTRIES, ttl=TTL_SECONDS)


def sign_in_options(tenant_id: str) -> tuple[SignInOption, ...]:
    """SignInOptionStore().get(tenant_id), at most TTL_SECONDS old; () for no tenant (no read)."""
    if not tenant_id:
        return ()
    now = clock.now()
    hit = _options().get(tenant_id, now)
    if hit is not None:
        return hit
    options = SignInOptionStore().get(tenant_id)
    _options().put(tenant_id, options, now)
    return options


class OptionsRead(NamedTuple):
    """A tenant's options registered in a batch read on a cache miss; `keep()` caches them once the batch ran."""

    tenant_id: str
    pending: Pending

    def keep(self) -> None:
        _options().put(self.tenant_id, options_in(self.pending.item), clock.now())


def prefetch_options(reads: BatchRead, tenant_id: str) -> OptionsRead | None:
    """Register the tenant's options in `reads` unless the cache holds them (None then, or for no tenant)."""
    if not tenant_id or "#" in tenant_id or _options().get(tenant_id, clock.now()) is not None:
        return None
    return OptionsRead(tenant_id, SignInOptionStore().prefetch(reads, tenant_id))
