"""The provider's UserInfo, asked only when the ID token lacks a claim the record maps (OpenID Connect Core 5.3).

Many providers put only `sub` in the ID token and the profile in UserInfo (Core 5.4 lets them). It
is asked when the provider has a UserInfo endpoint and the ID token holds none of the names the
record maps for the email or the name (or for the groups, when the record maps them explicitly:
most IdPs never send groups, and a sign-in should not cost a request for nothing). A GET with the
access token (RFC 6750 2.1) under authgate.outbound's rules; a JSON answer only (a signed
UserInfo is not asked for). Its `sub` must be the ID token's (5.3.4: otherwise the answer is about
someone else and must not be used). Its claims complete the ID token's; they never replace them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from authgate.federation.errors import UpstreamRefused
from authgate.outbound.connection import Limits
from authgate.outbound.documents import Unavailable, fetch_json

if TYPE_CHECKING:
    from authgate.federation.oidc.discovery import Provider
    from authgate.identity_providers.model import IdentityProvider

LIMITS = Limits(max_bytes=64 * 1024)


def needed(idp: IdentityProvider, claims: dict[str, Any]) -> bool:
    """Whether the ID token lacks a claim the record maps (email, name; groups when mapped explicitly)."""
    fields = ["email", "name"] + (["groups"] if "groups" in dict(idp.claims) else [])
    return any(not any(name in claims for name in idp.claim_names(field)) for field in fields)


def completed(idp: IdentityProvider, provider: Provider, claims: dict[str, Any], access_token: str) -> dict[str, Any]:
    """The ID token's claims, completed from UserInfo when `needed` and possible; UpstreamRefused when it lies."""
    if not provider.userinfo_endpoint or not access_token or not needed(idp, claims):
        return claims
    try:
        info = fetch_json(provider.userinfo_endpoint, limits=LIMITS,
                          headers={"Authorization": f"Bearer {access_token}"})
    except Unavailable as exc:
        raise UpstreamRefused("userinfo_unavailable", f"{provider.userinfo_endpoint}: {exc.internal}") from None
    if info.get("sub") != claims.get("sub"):
        raise UpstreamRefused("userinfo_subject_mismatch", "UserInfo's sub is not the ID token's (Core 5.3.4)")
    return {**info, **claims}
