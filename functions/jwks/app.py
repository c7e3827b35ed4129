"""Lambda handler: published keys, RFC 8414 metadata, problem pages, the pages' stylesheet, and the 404/405 catch-all.

"/{proxy+}" and "/" have no routes: every request there is a 404 rendered by the App.
"""

from __future__ import annotations

from authgate.errors.problems import get_problem
from authgate.http.app import App, Route
from authgate.http.cors import CorsPolicy
from authgate.oauth.browser_origins import allowed_origins
from authgate.oauth.metadata import get_metadata
from authgate.openapi.document import get_openapi
from authgate.pages.stylesheet import get_stylesheet
from authgate.tokens.jwks import get_jwks

handler = App("jwks", {
    ("/.well-known/jwks.json", "GET"): Route(get_jwks),
    ("/.well-known/oauth-authorization-server", "GET"): Route(get_metadata),
    ("/problems/{code}", "GET"): Route(get_problem),
    ("/openapi.json", "GET"): Route(get_openapi),
    ("/assets/authgate.css", "GET"): Route(get_stylesheet),
}, cors={
    # What a browser-based client reads before it starts (authgate.http.cors).
    "/.well-known/jwks.json": CorsPolicy(("GET",), allowed_origins),
    "/.well-known/oauth-authorization-server": CorsPolicy(("GET",), allowed_origins),
})
