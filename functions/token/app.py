"""Lambda handler: the token function — POST /oauth/token, /oauth/revoke, /oauth/introspect.

Token and revocation answer CORS for browser-based public clients (authgate.http.cors);
introspection is for resource servers, not browsers.
"""

from __future__ import annotations

from authgate.failures import api_error
from authgate.http.app import App, Route
from authgate.http.cors import CorsPolicy
from authgate.oauth.browser_origins import origin_allowed
from authgate.oauth.introspection import post_introspect
from authgate.oauth.revocation import post_revoke
from authgate.oauth.token_endpoint import post_token

handler = App("token", {
    ("/oauth/token", "POST"): Route(post_token, "oauth"),
    ("/oauth/revoke", "POST"): Route(post_revoke, "oauth"),
    ("/oauth/introspect", "POST"): Route(post_introspect, "oauth"),
}, translate=api_error, cors={
    "/oauth/token": CorsPolicy(("POST",), origin_allowed),
    "/oauth/revoke": CorsPolicy(("POST",), origin_allowed),
})
