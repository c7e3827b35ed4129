"""Sign-out with an upstream OpenID Provider, both ways: authgate ends the upstream session, the provider ends authgate's.

RP-Initiated Logout 1.0 (2): the browser goes to the provider's `end_session_endpoint` with the ID
token of the sign-in as `id_token_hint`, authgate's `post_logout_redirect_uri` (registered at the
provider), a `state` and the `client_id`. Without an end-session endpoint there is nothing to
send: None.

Back-Channel Logout 1.0 (2.4, 2.6): the provider POSTs a logout token, which must be a JWT signed
as its ID tokens are (federation.oidc.id_token: alg allow-list, key, iss, aud, azp, exp and iat
with leeway; `typ`, when present, `logout+jwt`), with an `events` object holding the back-channel
logout event (itself an object), a `sub` or a `sid` (or both), a `jti`, and no `nonce` (2.4: so a
logout token is never taken for an ID token). Its `jti` is spent last, once every rule held (a
conditional write: a replayed token is refused).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import urlencode

from authgate.federation.errors import UpstreamRefused
from authgate.federation.oidc.id_token import verified_claims
from authgate.single_use.errors import Replayed
from authgate.stores.replay import ReplayGuard, upstream_logout_key

if TYPE_CHECKING:
    from authgate.federation.oidc.discovery import Provider
    from authgate.identity_providers.model import IdentityProvider

EVENT = "http://schemas.openid.net/event/backchannel-logout"
LOGOUT_TOKEN_TYPES = ("logout+jwt",)
# How long a spent jti is remembered when the token's exp is sooner: the leeway would accept it again until then.
MIN_REMEMBERED = 600


class UpstreamLogout(NamedTuple):
    """Whose sessions the provider ended: its `sub` and/or its session id `sid` ("" when not sent)."""

    issuer: str
    subject: str
    session_id: str


def end_session_url(idp: IdentityProvider, provider: Provider, *, id_token_hint: str = "",
                    post_logout_redirect_uri: str = "", state: str = "") -> str | None:
    """Where the browser goes to end the upstream session too (RP-Initiated Logout 1.0 2); None when it cannot."""
    if not provider.end_session_endpoint:
        return None
    params = {"id_token_hint": id_token_hint, "post_logout_redirect_uri": post_logout_redirect_uri, "state": state,
              "client_id": idp.client_id}
    endpoint = provider.end_session_endpoint
    return endpoint + ("&" if "?" in endpoint else "?") + urlencode({k: v for k, v in params.items() if v})


def verify_logout_token(idp: IdentityProvider, provider: Provider, token: str, *, now: int) -> UpstreamLogout:
    """The logout the provider's token announces, its jti spent; UpstreamRefused when any rule fails."""
    claims = verified_claims(idp, provider, token, now=now, types=LOGOUT_TOKEN_TYPES, what="logout_token")
    events = claims.get("events")
    if not isinstance(events, dict) or not isinstance(events.get(EVENT), dict):
        raise UpstreamRefused("logout_token_malformed", "events does not hold the back-channel logout event (2.4)")
    if "nonce" in claims:
        raise UpstreamRefused("logout_token_malformed", "a logout token has no nonce (2.4)")
    sub, sid, jti = claims.get("sub"), claims.get("sid"), claims.get("jti")
    if not isinstance(sub, str | None) or not isinstance(sid, str | None) or not (sub or sid):
        raise UpstreamRefused("logout_token_malformed", "sub or sid, as strings, must be present (2.4)")
    if not isinstance(jti, str) or not 0 < len(jti) <= 255:
        raise UpstreamRefused("logout_token_malformed", "jti must be a string of 1 to 255 characters (2.4)")
    try:
        ReplayGuard().use(upstream_logout_key(provider.issuer, jti), max(int(claims["exp"]), now + MIN_REMEMBERED),
                          now=now)
    except Replayed:
        raise UpstreamRefused("logout_token_replayed", f"jti {jti[:64]!r} was used before") from None
    return UpstreamLogout(provider.issuer, sub or "", sid or "")
