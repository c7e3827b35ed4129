"""Lambda handler: GET/POST /oauth/authorize — the login + consent page and the code redirect; GET/POST
/oauth/logout — sign-out (OpenID Connect RP-Initiated Logout 1.0)."""

from __future__ import annotations

from authgate.failures import api_error
from authgate.http.app import App, Route
from authgate.oauth.authorization.endpoint import get_authorize, post_authorize

handler = App("authorize", {
    ("/oauth/authorize", "GET"): Route(get_authorize, "authorize"),
    ("/oauth/authorize", "POST"): Route(post_authorize, "authorize"),
    # OpenID Connect RP-Initiated Logout 1.0: GET and POST, pages only.
    ("/oauth/logout", "GET"): Route("authgate.oauth.logout.endpoint:logout", "authorize"),
    ("/oauth/logout", "POST"): Route("authgate.oauth.logout.endpoint:logout", "authorize"),
}, translate=api_error)
