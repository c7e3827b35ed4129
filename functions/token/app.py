"""Lambda handler: the token function — POST /oauth/token, /oauth/par, /oauth/device_authorization,
/oauth/backchannel, /oauth/revoke, /oauth/introspect;
GET and POST /oauth/userinfo.

Token, revocation and userinfo answer CORS for browser-based public clients (authgate.http.cors);
introspection is for resource servers, not browsers; pushed authorization requests come from a
client's back end (a public browser client sends its authorization request directly).
"""

from __future__ import annotations

from authgate.failures import api_error
from authgate.http.app import App, Route
from authgate.http.cors import CorsPolicy
from authgate.oauth.clients.browser_origins import origin_allowed
from authgate.oauth.token.endpoint import post_token

# The token endpoint loads with the function; the other routes on their first request.
handler = App("token", {
    ("/oauth/token", "POST"): Route(post_token, "oauth"),
    ("/oauth/par", "POST"): Route("authgate.oauth.authorization.par:post_par", "oauth"),
    # RFC 8628 3.1: the device authorization endpoint.
    ("/oauth/device_authorization", "POST"): Route("authgate.oauth.device.authorization:post_device_authorization",
                                                   "oauth"),
    # OpenID Connect CIBA Core 7: the backchannel authentication endpoint (poll mode).
    ("/oauth/backchannel", "POST"): Route("authgate.oauth.backchannel.endpoint:post_backchannel", "oauth"),
    ("/oauth/revoke", "POST"): Route("authgate.oauth.token.revocation:post_revoke", "oauth"),
    ("/oauth/introspect", "POST"): Route("authgate.oauth.token.introspection:post_introspect", "oauth"),
    # OpenID Connect Core 5.3: GET and POST.
    ("/oauth/userinfo", "GET"): Route("authgate.oauth.userinfo:get_userinfo", "api"),
    ("/oauth/userinfo", "POST"): Route("authgate.oauth.userinfo:get_userinfo", "api"),
    # RFC 7591 / RFC 7592 (DynamicClientRegistration; off by default).
    ("/oauth/register", "POST"): Route("authgate.oauth.clients.registration.endpoint:post_register", "oauth"),
    ("/oauth/register/{client_id}", "GET"): Route("authgate.oauth.clients.registration.management:get_registration", "oauth"),
    ("/oauth/register/{client_id}", "PUT"): Route("authgate.oauth.clients.registration.management:put_registration", "oauth"),
    ("/oauth/register/{client_id}", "DELETE"): Route("authgate.oauth.clients.registration.management:delete_registration", "oauth"),
}, translate=api_error, cors={
    "/oauth/token": CorsPolicy(("POST",), origin_allowed),
    "/oauth/revoke": CorsPolicy(("POST",), origin_allowed),
    "/oauth/userinfo": CorsPolicy(("GET", "POST"), origin_allowed),
})
