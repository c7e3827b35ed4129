"""Lambda handler: GET/POST /oauth/authorize — the login + consent page and the code redirect; GET/POST
/oauth/logout — sign-out (OpenID Connect RP-Initiated Logout 1.0), and its upstream legs (back from an
IdP's sign-out, an IdP's back-channel logout); the forgotten-password pages
(/oauth/forgot-password, /oauth/reset-password), the account page (/oauth/account), the device
verification page (/oauth/device, RFC 8628 3.3) and where identity providers answer a sign-in
(/oauth/federation/callback, /saml/{tenant}/acs), loaded on their first request."""

from __future__ import annotations

from authgate.failures import api_error
from authgate.http.app import App, Route
from authgate.oauth.authorization.endpoint import get_authorize, post_authorize

_PASSWORDS = "authgate.account.forgotten_password"
_ACCOUNT = "authgate.account.page"
_DEVICE = "authgate.oauth.device.verification"
_UPSTREAM = "authgate.oauth.federation.callback"

handler = App("authorize", {
    ("/oauth/authorize", "GET"): Route(get_authorize, "authorize"),
    ("/oauth/authorize", "POST"): Route(post_authorize, "authorize"),
    # OpenID Connect RP-Initiated Logout 1.0: GET and POST, pages only.
    ("/oauth/logout", "GET"): Route("authgate.oauth.logout.endpoint:logout", "authorize"),
    ("/oauth/logout", "POST"): Route("authgate.oauth.logout.endpoint:logout", "authorize"),
    # Sign-out through an upstream identity provider (docs/federation.md#sign-out-through-the-identity-provider):
    # back from an OpenID Provider's end-session endpoint, back from a SAML IdP's Single Logout, and an
    # OpenID Provider's back-channel logout.
    ("/oauth/federation/logged-out", "GET"): Route("authgate.oauth.logout.returns:get_logged_out", "authorize"),
    ("/saml/{tenant}/slo", "GET"): Route("authgate.oauth.logout.returns:get_slo", "authorize"),
    ("/oauth/federation/{tenant}/{idp_id}/backchannel-logout", "POST"):
        Route("authgate.oauth.logout.upstream_backchannel:post_backchannel_logout", "oauth"),
    ("/oauth/forgot-password", "GET"): Route(f"{_PASSWORDS}:get_forgot", "authorize"),
    ("/oauth/forgot-password", "POST"): Route(f"{_PASSWORDS}:post_forgot", "authorize"),
    ("/oauth/reset-password", "GET"): Route(f"{_PASSWORDS}:get_reset", "authorize"),
    ("/oauth/reset-password", "POST"): Route(f"{_PASSWORDS}:post_reset", "authorize"),
    # OpenID Connect CIBA (docs/ciba.md): the page a backchannel request's approval link opens.
    ("/oauth/approve", "GET"): Route("authgate.oauth.backchannel.approval_page:get_approve", "authorize"),
    ("/oauth/approve", "POST"): Route("authgate.oauth.backchannel.approval_page:post_approve", "authorize"),
    ("/oauth/account", "GET"): Route(f"{_ACCOUNT}:get_account", "authorize"),
    ("/oauth/account", "POST"): Route(f"{_ACCOUNT}:post_account", "authorize"),
    # RFC 8628 3.3: the device authorization grant's verification page.
    ("/oauth/device", "GET"): Route(f"{_DEVICE}:get_device", "authorize"),
    ("/oauth/device", "POST"): Route(f"{_DEVICE}:post_device", "authorize"),
    # An identity provider's answer to a sign-in (docs/federation.md): OpenID Connect, then SAML 2.0.
    ("/oauth/federation/callback", "GET"): Route(f"{_UPSTREAM}:get_callback", "authorize"),
    ("/oauth/federation/callback", "POST"): Route(f"{_UPSTREAM}:post_callback", "authorize"),
    ("/saml/{tenant}/acs", "POST"): Route(f"{_UPSTREAM}:post_acs", "authorize"),
}, translate=api_error)
