"""Lambda handler: published keys, RFC 8414 and RFC 9728 metadata, problem pages, the pages' stylesheet, and the 404/405 catch-all.

"/{proxy+}" and "/" have no routes: every request there is a 404 rendered by the App.
"""

from __future__ import annotations

from authgate.failures import api_error
from authgate.http.app import App, Route
from authgate.http.cors import CorsPolicy
from authgate.http.pages.stylesheet import get_stylesheet
from authgate.http.problem_pages import get_problem
from authgate.oauth.browser_origins import origin_allowed
from authgate.oauth.metadata import get_metadata
from authgate.oauth.protected_resource_metadata import get_resource_metadata
from authgate.openapi.document import get_openapi
from authgate.tokens.jwk_set import get_jwks

handler = App("jwks", {
    ("/.well-known/jwks.json", "GET"): Route(get_jwks),
    ("/.well-known/oauth-authorization-server", "GET"): Route(get_metadata),
    # RFC 9728 3.1: the charges API's metadata, at the suffixed path its identifier asks for and bare.
    ("/.well-known/oauth-protected-resource", "GET"): Route(get_resource_metadata),
    ("/.well-known/oauth-protected-resource/charges", "GET"): Route(get_resource_metadata),
    ("/problems/{code}", "GET"): Route(get_problem),
    ("/openapi.json", "GET"): Route(get_openapi),
    ("/assets/authgate.css", "GET"): Route(get_stylesheet),
}, translate=api_error, cors={
    # What a browser-based client reads before it starts (authgate.http.cors).
    "/.well-known/jwks.json": CorsPolicy(("GET",), origin_allowed),
    "/.well-known/oauth-authorization-server": CorsPolicy(("GET",), origin_allowed),
    "/.well-known/oauth-protected-resource": CorsPolicy(("GET",), origin_allowed),
    "/.well-known/oauth-protected-resource/charges": CorsPolicy(("GET",), origin_allowed),
})
