"""Sign-out of a federated session reaches the upstream identity provider, and comes back to finish.

authgate's own session has already ended (oauth.logout.endpoint); what the person had signed in
with upstream ends next, where the IdP offers a way:
- OpenID Connect: RP-Initiated Logout 1.0 at its `end_session_endpoint` (discovery), with the
  session's upstream ID token as `id_token_hint` (unsealed: federation.secrets.id_token_of),
  `post_logout_redirect_uri` = `<issuer>/oauth/federation/logged-out` and a `state`;
- SAML: a LogoutRequest by HTTP-Redirect to its SingleLogoutService (federation.saml.logout_url),
  naming the NameID and SessionIndex of the assertion, answered at `<issuer>/saml/<tenant>/slo`.
The browser carries what is left to do in a sealed cookie (`authgate_logout`, SameSite=Lax so that
the IdP's redirect back brings it, HttpOnly, TTL seconds): the IdP, the `state`/RelayState sent,
the LogoutRequest's ID, and where authgate's sign-out ends (pages.Onward). oauth.logout.returns
reads it back. The IdP record is read once (stores.identity_provider_cache: the one extra read of
a federated sign-out, none when warm).

When the IdP offers no sign-out (no end-session endpoint, no SingleLogoutService), its record is
gone, or it cannot be reached (its discovery fails), the sign-out ends here as a local one does,
and the page says that the person may still be signed in there.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from authgate.federation.errors import UpstreamRefused
from authgate.http.cookies import cookie_values, set_cookie
from authgate.http.response import NO_STORE, Response
from authgate.interaction.sealed_state import FormStateInvalid, open_state, seal_state
from authgate.issuer import base_url
from authgate.logs import get_logger
from authgate.oauth.logout import pages
from authgate.stores.identity_provider_cache import trusted_idp

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.identity_providers.model import IdentityProvider
    from authgate.sessions.model import Session, Upstream

COOKIE = "authgate_logout"
PURPOSE = b"upstream-logout"
# Long enough for an IdP's own confirmation page; a sign-out not back by then ends on the "signed out" page.
TTL = 900
# The sealed cookie holds the application's address with its state: room for long ones, within a browser's 4 KB.
MAX_COOKIE = 3800


def leave(request: Request, session: Session, onward: pages.Onward) -> Response:
    """The redirect to the upstream's sign-out with the cookie that resumes it, or the end of the sign-out here."""
    upstream = session.upstream
    assert upstream is not None
    idp = trusted_idp(session.tenant_id, upstream.issuer)
    if idp is None or idp.protocol != upstream.protocol:
        get_logger().info("upstream logout skipped: identity provider gone",
                          extra={"tenant": session.tenant_id, "idp_id": upstream.idp_id})
        return pages.ended(onward)
    issuer = base_url(request)
    state = secrets.token_urlsafe(16)
    try:
        found = _oidc(idp, session.tenant_id, upstream, issuer, state) if upstream.protocol == "oidc" \
            else _saml(idp, session.tenant_id, upstream, issuer, state)
    except UpstreamRefused as refused:
        get_logger().warning("upstream logout unavailable", extra={"tenant": session.tenant_id,
                                                                   "idp_id": upstream.idp_id, "reason": refused.reason,
                                                                   "detail": refused.internal})
        return pages.ended(onward, f"{label(idp)} could not be reached to sign you out there too: sign out there, "
                                   "or close your browser.")
    if found is None:
        return pages.ended(onward, f"{label(idp)} offers no sign-out to this server: you may still be signed in "
                                   "there. Sign out there, or close your browser.")
    url, request_id = found
    cookie = seal_state(PURPOSE, {"p": upstream.protocol, "t": session.tenant_id, "i": idp.issuer, "s": state,
                                  "r": request_id, "o": onward.location, "f": onward.follow}, TTL)
    if len(cookie) > MAX_COOKIE:  # an application's address too long to carry: the sign-out ends here
        return pages.ended(onward, f"{label(idp)} was not asked to sign you out: sign out there, or close your "
                                   "browser.")
    response = Response(302, "", {"Location": url, **NO_STORE, "Referrer-Policy": "no-referrer"})
    response.multi_headers["Set-Cookie"] = [set_cookie(COOKIE, cookie, issuer, same_site="Lax", max_age=TTL)]
    return response


def pending(request: Request) -> dict[str, Any] | None:
    """The sign-out this browser left authgate for, still within its TTL (None: none, altered or expired)."""
    for value in cookie_values(request, COOKIE):
        try:
            return open_state(PURPOSE, value)
        except (FormStateInvalid, ValueError, KeyError):
            continue
    return None


def clear_cookie(issuer: str) -> str:
    return set_cookie(COOKIE, "", issuer, same_site="Lax", max_age=0)


def label(idp: IdentityProvider) -> str:
    """How the pages name the IdP: its button's label, or its host."""
    return idp.label or urlsplit(idp.issuer).hostname or "Your identity provider"


def _oidc(idp: IdentityProvider, tenant_id: str, upstream: Upstream, issuer: str,
          state: str) -> tuple[str, str] | None:
    from authgate.federation.oidc.discovery import discover
    from authgate.federation.oidc.logout import end_session_url
    from authgate.federation.secrets import id_token_of
    from authgate.identity_providers.model import post_logout_redirect_uri
    from authgate.sealing import SecretUnreadable

    try:
        hint = id_token_of(tenant_id, upstream)
    except SecretUnreadable:  # the sealing key changed since: the provider asks the person instead
        hint = ""
    url = end_session_url(idp, discover(idp), id_token_hint=hint,
                          post_logout_redirect_uri=post_logout_redirect_uri(issuer), state=state)
    return (url, "") if url is not None else None


def _saml(idp: IdentityProvider, tenant_id: str, upstream: Upstream, issuer: str,
          state: str) -> tuple[str, str] | None:
    from authgate.federation.saml import logout_url
    from authgate.federation.saml.metadata import MetadataInvalid
    from authgate.federation.saml.sp_metadata import sp_entity_id

    try:
        return logout_url(idp, sp_entity_id=sp_entity_id(issuer, tenant_id), subject=upstream.name_id or upstream.subject,
                          session_index=upstream.sid, relay_state=state)
    except MetadataInvalid as invalid:
        raise UpstreamRefused("idp_not_saml", str(invalid)) from None
