"""Lambda handler: GET/POST /oauth/authorize — the login + consent page and the code redirect."""

from __future__ import annotations

from authgate.failures import api_error
from authgate.http.app import App, Route
from authgate.oauth.authorization.endpoint import get_authorize, post_authorize

handler = App("authorize", {
    ("/oauth/authorize", "GET"): Route(get_authorize, "authorize"),
    ("/oauth/authorize", "POST"): Route(post_authorize, "authorize"),
}, translate=api_error)
