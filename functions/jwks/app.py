"""Lambda handler: published keys, RFC 8414, RFC 9728 and Shared Signals metadata, problem pages, the pages'
assets (stylesheet, passkey script, icon), a tenant's SAML service provider metadata, and the 404/405 catch-all.

"/{proxy+}" and "/" have no routes: every request there is a 404 rendered by the App.
"""

from __future__ import annotations

from authgate.failures import api_error
from authgate.http.app import App, Route
from authgate.http.cors import CorsPolicy
from authgate.http.pages.script import get_script
from authgate.http.pages.stylesheet import get_stylesheet
from authgate.http.problem_pages import get_problem
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.oauth.clients.browser_origins import origin_allowed
from authgate.oauth.discovery.authorization_server import get_metadata
from authgate.oauth.discovery.protected_resource import get_resource_metadata
from authgate.openapi.document import get_openapi
from authgate.settings import get_settings
from authgate.tokens.jwk_set import jwk_set


def get_jwks(request: Request) -> Response:
    # No stale-while-revalidate / stale-if-error: either would let a cache serve a copy older
    # than max-age, which the overlap rule does not allow for.
    return Response.json(200, jwk_set(), headers={"Cache-Control": f"public, max-age={get_settings().jwks_max_age}"})


handler = App("jwks", {
    ("/.well-known/jwks.json", "GET"): Route(get_jwks),
    ("/.well-known/oauth-authorization-server", "GET"): Route(get_metadata),
    # OpenID Connect Discovery 4: the same document (oauth.discovery.authorization_server).
    ("/.well-known/openid-configuration", "GET"): Route(get_metadata),
    # RFC 9728 3.1: the charges API's metadata, at the suffixed path its identifier asks for and bare.
    ("/.well-known/oauth-protected-resource", "GET"): Route(get_resource_metadata),
    ("/.well-known/oauth-protected-resource/charges", "GET"): Route(get_resource_metadata),
    # OpenID Shared Signals Framework 1.0 7.2: the transmitter's configuration.
    ("/.well-known/ssf-configuration", "GET"): Route("authgate.ssf.configuration:get_ssf_configuration"),
    ("/problems/{code}", "GET"): Route(get_problem),
    ("/openapi.json", "GET"): Route(get_openapi),
    ("/assets/authgate.css", "GET"): Route(get_stylesheet),
    ("/assets/passkeys.js", "GET"): Route(get_script),
    ("/assets/icon.svg", "GET"): Route("authgate.http.pages.icon:get_icon"),
    # A tenant's SAML SP metadata: loads the SAML library, so only on its first request.
    ("/saml/{tenant}/metadata", "GET"): Route("authgate.oauth.discovery.saml_service_provider:get_sp_metadata"),
}, translate=api_error, cors={
    # What a browser-based client reads before it starts (authgate.http.cors).
    "/.well-known/jwks.json": CorsPolicy(("GET",), origin_allowed),
    "/.well-known/oauth-authorization-server": CorsPolicy(("GET",), origin_allowed),
    "/.well-known/openid-configuration": CorsPolicy(("GET",), origin_allowed),
    "/.well-known/oauth-protected-resource": CorsPolicy(("GET",), origin_allowed),
    "/.well-known/oauth-protected-resource/charges": CorsPolicy(("GET",), origin_allowed),
})
