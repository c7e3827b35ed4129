"""The one place an ApiError becomes a Response: picks the renderer for the route's surface.

Surfaces: "api" negotiates problem+json (default), JSON:API or a legacy shape
(http.negotiation); "oauth" is RFC 6749 5.2 JSON; "authorize" is a redirect to the client or,
when that is not safe, an HTML page; "page" that HTML page, for pages of no protocol (the
console). Renderers are pure functions of (error, request).
Invariants kept here for every shape: the body's status is the HTTP status, the code is in the
body, a failure is never a 2xx/3xx on the API surface, and a 401 always challenges.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from authgate.errors.challenges import bearer
from authgate.http.negotiation import error_shape
from authgate.http.response import Response
from authgate.http.shapes.jsonapi import MEDIA_TYPE as JSONAPI_MEDIA_TYPE
from authgate.http.shapes.jsonapi import jsonapi_body
from authgate.http.shapes.legacy import MEDIA_TYPE as LEGACY_MEDIA_TYPE
from authgate.http.shapes.legacy import legacy_a_body, legacy_b_body
from authgate.http.shapes.oauth import authorize_error, error_page, oauth_json
from authgate.http.shapes.problem import MEDIA_TYPE as PROBLEM_MEDIA_TYPE
from authgate.http.shapes.problem import problem_body

if TYPE_CHECKING:
    from authgate.errors.model import ApiError
    from authgate.http.request import Request

# How a route reports errors: "api" negotiates problem+json / JSON:API / legacy shapes;
# "oauth" is RFC 6749 5.2 JSON; "authorize" is the authorization endpoint (error page or redirect);
# "page" is a page of no protocol (the console's): the error page, naming only our code.
Surface = Literal["api", "oauth", "authorize", "page"]

DEFAULT_RETRY_AFTER = "1"

def render_error(error: ApiError, request: Request | None, surface: Surface) -> Response:
    """Render `error` for a route of `surface` ("api", "oauth" or "authorize")."""
    if surface == "oauth":
        response = oauth_json(error, request)
    elif surface == "authorize":
        response = authorize_error(error, request)
    elif surface == "page":
        response = error_page(error, request, oauth=False)
    else:
        response = render_api_error(error, request)
    if error.status in (429, 503) and response.get_header("Retry-After") is None:
        # Contract 7.5 / 8.1: a client told to come back must be told when. Whoever raised the
        # error usually knows better (limiter reset, store backoff); this is the floor.
        response.set_header("Retry-After", DEFAULT_RETRY_AFTER)
    return response


def render_api_error(error: ApiError, request: Request | None) -> Response:
    """An API-route failure in the negotiated shape, with Vary: Accept."""
    shape = error_shape(request)
    if shape == "jsonapi":
        response = Response.json(error.status, jsonapi_body(error, request), JSONAPI_MEDIA_TYPE)
    elif shape == "legacy-a":
        response = Response.json(error.status, legacy_a_body(error), LEGACY_MEDIA_TYPE)
    elif shape == "legacy-b":
        response = Response.json(error.status, legacy_b_body(error), LEGACY_MEDIA_TYPE)
    else:
        response = Response.json(error.status, problem_body(error, request), PROBLEM_MEDIA_TYPE)
    response.set_header("Vary", "Accept")
    if error.status == 401:
        # RFC 9110 15.5.2: a 401 MUST challenge; the guard's own challenge (with error=) wins below.
        response.set_header("WWW-Authenticate", bearer())
    for name, value in error.headers.items():
        response.set_header(name, value)
    return response
