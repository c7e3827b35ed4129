"""POST /oauth/federation/{tenant}/{idp_id}/backchannel-logout: an upstream OpenID Provider ends the sessions it opened.

OpenID Connect Back-Channel Logout 1.0, authgate as the relying party: the provider POSTs a
`logout_token` (2.5) to the backchannel_logout_uri its administrator registered for authgate
(identity_providers.model.backchannel_logout_uri, one per IdP of a tenant). In order:
1. the form: application/x-www-form-urlencoded, `logout_token` present and sent once (oauth.token.form);
2. the IdP: the one of the path's tenant whose issuer is the token's `iss` (read before the
   signature is checked, to choose the keys, as an ID-JAG's is), an OpenID Connect IdP whose id
   is the path's; the token is never checked against another tenant's or IdP's keys;
3. the token (federation.oidc.logout.verify_logout_token, 2.6): signature, iss, aud, iat/exp,
   the event, sub and/or sid, no nonce, and its jti spent (a replay is refused);
4. the sessions it names (federation.upstream_sessions: by sid, else by sub through the linked
   identity) end as a sign-out ends them (oauth.logout.ending: item deleted, grants revoked, and
   authgate's own back-channel logout tokens queued for the sessions' clients).
200 with an empty body when the token held -- also when it named no session here (2.8: the logout
"succeeded": there was nothing to end); 400 invalid_request otherwise, with one description for
every failure (no oracle of which tenants or IdPs exist, nor of which rule failed: the log says).
Every answer is no-store (2.8).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate import clock
from authgate.errors import ApiError
from authgate.federation.errors import UpstreamRefused
from authgate.http.response import NO_STORE, Response
from authgate.issuer import base_url
from authgate.logs import get_logger
from authgate.oauth.logout import ending
from authgate.oauth.token.form import read_form
from authgate.stores.identity_provider_cache import trusted_idp
from authgate.tokens.jws import segment_json

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.identity_providers.model import IdentityProvider

REFUSED = "The logout_token could not be validated."
# federation.oidc.id_token.MAX_TOKEN: a longer one is never parsed.
MAX_TOKEN = 32 * 1024


def post_backchannel_logout(request: Request) -> Response:
    """Back-Channel Logout 1.0 2.5-2.8, as the relying party of the path's IdP."""
    from authgate.federation import upstream_sessions
    from authgate.federation.oidc.discovery import discover
    from authgate.federation.oidc.logout import verify_logout_token

    token = read_form(request).get("logout_token")
    if token is None:
        raise ApiError("invalid_request", "The logout_token parameter is missing (Back-Channel Logout 1.0 2.5).")
    tenant, idp_id = request.path_params.get("tenant", ""), request.path_params.get("idp_id", "")
    idp = _idp(tenant, idp_id, token)
    try:
        logout = verify_logout_token(idp, discover(idp), token, now=clock.seconds())
    except UpstreamRefused as refused:
        raise ApiError("invalid_request", REFUSED, internal=f"{refused.reason}: {refused.internal}") from None
    sessions = upstream_sessions.named(tenant, logout.issuer, subject=logout.subject, session_id=logout.session_id)
    ending.end(sessions, base_url(request), "upstream signed out", idp=idp_id)
    get_logger().info("upstream back-channel logout", extra={"tenant": tenant, "idp_id": idp_id,
                                                              "sessions_ended": len(sessions)})
    return Response(200, "", dict(NO_STORE))


def _idp(tenant: str, idp_id: str, token: str) -> IdentityProvider:
    """The path's OpenID Connect IdP that the token says issued it; invalid_request (one description) otherwise."""
    parts = token.split(".") if len(token) <= MAX_TOKEN else []
    claims = segment_json(parts[1]) if len(parts) == 3 else None
    iss = claims.get("iss") if claims is not None else None
    idp = trusted_idp(tenant, iss) if isinstance(iss, str) and iss and tenant else None
    if idp is None or idp.protocol != "oidc" or not idp.idp_id or idp.idp_id != idp_id:
        raise ApiError("invalid_request", REFUSED,
                       internal="not a JWS" if claims is None else f"no OpenID Connect IdP {idp_id[:40]!r} of "
                       f"tenant {tenant[:64]!r} with iss {str(iss)[:200]!r}")
    return idp
