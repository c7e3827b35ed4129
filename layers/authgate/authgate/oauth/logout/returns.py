"""Back from the upstream identity provider's sign-out: the end of a federated sign-out (oauth.logout.upstream).

GET /oauth/federation/logged-out -- an OpenID Provider's post_logout_redirect_uri (RP-Initiated
Logout 1.0 3): its `state` must be the one this browser's sign-out cookie holds (compared in
constant time); the provider's redirect is all it says, so the sign-out then ends as authgate's
own would have (pages.ended: the application's registered URI, or the "signed out" page).

GET /saml/{tenant}/slo -- the SingleLogoutService of authgate's SP metadata: the IdP's
LogoutResponse by HTTP-Redirect (Bindings 3.4), its RelayState the cookie's, checked by
federation.saml.logout_response (signature when signed, InResponseTo the request this browser
was sent with, Destination, Issuer, Status). A response that fails a rule, or an IdP that says it
did not sign the person out, ends on the "signed out" page saying so (authgate's session ended
before the person left). A LogoutRequest from the IdP (IdP-initiated Single Logout) is refused:
authgate does not take them (docs/federation.md#not-done-yet).

Without the cookie (expired, or another browser) nothing is waiting to finish: an error page,
which says that a sign-out begun here has happened. Either way the cookie is cleared.
"""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING, Any

from authgate.errors import ApiError
from authgate.federation.errors import UpstreamRefused
from authgate.issuer import base_url
from authgate.logs import get_logger
from authgate.oauth.logout import pages, upstream
from authgate.stores.identity_provider_cache import trusted_idp

if TYPE_CHECKING:
    from authgate.http.request import Request
    from authgate.http.response import Response

SAML_PARAMETERS = ("SAMLResponse", "SAMLRequest", "RelayState", "SigAlg", "Signature")
NOTHING_PENDING = ("No sign-out is waiting to finish in this browser: it took too long, or began in another browser. "
                   "A sign-out that began at this server has ended your session here.")


def get_logged_out(request: Request) -> Response:
    """GET /oauth/federation/logged-out: an OpenID Provider's sign-out sent the browser back."""
    state = _single(request, ("state",)).get("state", "")
    left = upstream.pending(request)
    if left is None or left.get("p") != "oidc" or not _same(state, left.get("s")):
        raise ApiError("invalid_request", NOTHING_PENDING)
    return _finished(request, left, "")


def get_slo(request: Request) -> Response:
    """GET /saml/{tenant}/slo: the IdP's LogoutResponse to authgate's LogoutRequest."""
    from authgate.federation.saml.logout_response import check
    from authgate.federation.saml.sp_metadata import slo_url, tenant_path

    tenant = request.path_params.get("tenant", "")
    if not tenant_path(tenant):
        raise ApiError("not_found", "There is no SAML service provider at this path.")
    params = _single(request, SAML_PARAMETERS)
    if "SAMLRequest" in params:
        raise ApiError("invalid_request", "This server does not take logout requests from identity providers: sign "
                                          "out at the application, or at this server.")
    left = upstream.pending(request)
    if left is None or left.get("p") != "saml" or left.get("t") != tenant \
            or not _same(params.get("RelayState", ""), left.get("s")):
        raise ApiError("invalid_request", NOTHING_PENDING)
    idp = trusted_idp(tenant, str(left.get("i", "")))
    note = ""
    try:
        if idp is None:
            raise UpstreamRefused("idp_gone", "the identity provider's record was deleted meanwhile")
        check(idp, params, slo_url=slo_url(base_url(request), tenant), expected_request_id=str(left.get("r", "")))
    except UpstreamRefused as refused:
        get_logger().warning("upstream logout not confirmed", extra={"tenant": tenant, "reason": refused.reason,
                                                                     "detail": refused.internal})
        name = upstream.label(idp) if idp is not None else "Your identity provider"
        note = f"{name} did not confirm that it signed you out: sign out there, or close your browser."
    return _finished(request, left, note)


def _finished(request: Request, left: dict[str, Any], note: str) -> Response:
    response = pages.ended(pages.Onward(str(left.get("o", "")), left.get("f") is True), note)
    response.multi_headers.setdefault("Set-Cookie", []).append(upstream.clear_cookie(base_url(request)))
    return response


def _single(request: Request, names: tuple[str, ...]) -> dict[str, str]:
    """The query's `names`, each at most once (invalid_request when repeated); others are ignored."""
    out: dict[str, str] = {}
    for name in names:
        given = request.query.get(name) or []
        if len(given) > 1:
            raise ApiError("invalid_request", f"The {name} parameter is repeated.")
        if given:
            out[name] = given[0]
    return out


def _same(sent: str, kept: Any) -> bool:
    return isinstance(kept, str) and bool(kept) and hmac.compare_digest(sent.encode(), kept.encode())
