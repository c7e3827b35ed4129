"""Lambda handler: the token function — POST /oauth/token, /oauth/par, /oauth/device_authorization,
/oauth/backchannel, /oauth/revoke, /oauth/introspect;
GET and POST /oauth/userinfo; the Shared Signals transmitter's /ssf/* (docs/shared-signals.md).

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
    # OpenID Shared Signals Framework 1.0 8.1: the transmitter's stream management API, and RFC 8936 polls.
    ("/ssf/streams", "POST"): Route("authgate.ssf.streams:create_stream"),
    ("/ssf/streams", "GET"): Route("authgate.ssf.streams:get_streams"),
    ("/ssf/streams", "PATCH"): Route("authgate.ssf.streams:update_stream"),
    ("/ssf/streams", "PUT"): Route("authgate.ssf.streams:replace_stream"),
    ("/ssf/streams", "DELETE"): Route("authgate.ssf.streams:delete_stream"),
    ("/ssf/status", "GET"): Route("authgate.ssf.status:get_status"),
    ("/ssf/status", "POST"): Route("authgate.ssf.status:post_status"),
    ("/ssf/subjects/add", "POST"): Route("authgate.ssf.subjects:add_subject"),
    ("/ssf/subjects/remove", "POST"): Route("authgate.ssf.subjects:remove_subject"),
    ("/ssf/verify", "POST"): Route("authgate.ssf.verification:post_verify"),
    ("/ssf/poll", "POST"): Route("authgate.ssf.poll:post_poll"),
}, translate=api_error, cors={
    "/oauth/token": CorsPolicy(("POST",), origin_allowed),
    "/oauth/revoke": CorsPolicy(("POST",), origin_allowed),
    "/oauth/userinfo": CorsPolicy(("GET", "POST"), origin_allowed),
})
