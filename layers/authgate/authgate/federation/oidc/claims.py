"""An upstream identity from a validated ID token's claims, through the record's claim mapping.

The subject is the ID token's `sub` (never an email: Core 5.7 says only iss and sub identify a
person). Email, name and groups come from the claims the record maps (or the defaults: email,
name, groups); `email_verified` counts only as JSON true or Apple's string "true". `acr`, `amr`,
`auth_time` and `sid` (Front- and Back-Channel Logout's session id) are kept as sent, for the
assurance rules and upstream logout. Google: when the record names email domains, the `hd` claim
(the Workspace domain of the account) must be one of them -- an account of another Workspace, or
a consumer account, is refused however its email reads. Apple's name arrives beside the token,
in the first form POST (federation.oidc.apple).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from authgate.federation.errors import UpstreamRefused
from authgate.federation.upstream import UpstreamIdentity
from authgate.tokens.numeric_date import numeric_date

if TYPE_CHECKING:
    from authgate.identity_providers.model import IdentityProvider

MAX_TEXT = 320
MAX_GROUPS = 200


def _first(claims: dict[str, Any], names: tuple[str, ...]) -> Any:
    return next((claims[name] for name in names if name in claims), None)


def _text(value: Any) -> str:
    return value[:MAX_TEXT] if isinstance(value, str) else ""


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(v for v in value[:MAX_GROUPS] if isinstance(v, str))
    return ()


def identity(idp: IdentityProvider, claims: dict[str, Any], id_token: str, *, name: str = "") -> UpstreamIdentity:
    """The UpstreamIdentity the claims describe, once Google's `hd` rule holds."""
    if idp.preset == "google" and idp.domains and claims.get("hd") not in idp.domains:
        raise UpstreamRefused("hosted_domain_refused", f"hd {str(claims.get('hd'))[:100]!r} is not one of "
                                                       f"{', '.join(idp.domains)}")
    verified = claims.get("email_verified")
    auth_time = numeric_date(claims.get("auth_time"))
    return UpstreamIdentity(
        tenant_id=idp.tenant_id, issuer=idp.issuer, subject=str(claims["sub"]),
        email=_text(_first(claims, idp.claim_names("email"))),
        email_verified=verified is True or verified == "true",
        name=name or _text(_first(claims, idp.claim_names("name"))),
        groups=_strings(_first(claims, idp.claim_names("groups"))),
        acr=_text(claims.get("acr")), amr=_strings(claims.get("amr")),
        auth_time=int(auth_time) if auth_time is not None else 0,
        session_id=_text(claims.get("sid")), id_token=id_token)
