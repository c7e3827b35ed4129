"""CORS for the endpoints a browser-based client calls (Fetch standard, "CORS protocol"; RFC 6454 origins).

A browser app is a public client (it cannot keep a secret, RFC 6749 2.1), and the origins it
runs on are those of its registered redirect URIs. A resource with a `CorsPolicy` answers:
- a preflight (OPTIONS with Access-Control-Request-Method) from an allowed origin with 204 and
  the allowed methods and request headers (cached by the browser for Max-Age); from any other
  origin with 403 `origin_not_allowed`, so the developer sees why in the network panel;
- OPTIONS without Access-Control-Request-Method with 204 and Allow (RFC 9110 9.3.7);
- every other response, errors included, with Access-Control-Allow-Origin: <that origin> and
  the headers a client needs to read (x-request-id, WWW-Authenticate, Retry-After, RateLimit).
Exact origins only, never `*`, never Access-Control-Allow-Credentials (these endpoints use no
cookies), and `Vary: Origin` on every response a cache could keep (GET without no-store) and on
every response to a request with an Origin, so a cache never hands one origin's answer to
another. Whether an origin is allowed comes from a callable, asked only when a request carries
an Origin header: requests from servers cost nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from authgate.errors import ApiError
from authgate.http.response import Response
from authgate.logs import get_logger

if TYPE_CHECKING:
    from authgate.http.request import Request

ALLOWED_HEADERS = ("Authorization", "Content-Type", "X-Request-Id", "X-Correlation-Id", "Traceparent")
EXPOSED_HEADERS = ("x-request-id", "x-correlation-id", "traceparent", "WWW-Authenticate", "Retry-After",
                   "RateLimit", "RateLimit-Policy")
# Long enough to spare a sign-in its second preflight, short enough for a removed client to lose
# access soon (browsers cap it anyway: Chromium at 2 hours).
MAX_AGE_SECONDS = 600


class CorsPolicy(NamedTuple):
    """CORS for one resource: the methods browsers may use on it and where they may call from."""

    methods: tuple[str, ...]
    # Whether an origin may read the responses (called only for requests with an Origin header).
    allows: Callable[[str], bool]

    def allowed_origin(self, request: Request) -> str | None:
        """The request's Origin when it may read the response, else None."""
        origin = request.header("origin")
        if not origin or origin == "null":
            return None
        try:
            allowed = self.allows(origin)
        except Exception:  # noqa: BLE001 - no CORS beats failing a JWKS or metadata read
            get_logger().warning("cors origins unavailable", exc_info=True)
            return None
        return origin if allowed else None

    def preflight(self, request: Request) -> Response:
        """OPTIONS on the resource: a CORS preflight, or a plain OPTIONS (RFC 9110 9.3.7)."""
        allow = ", ".join(sorted({*self.methods, "OPTIONS"}))
        if request.header("access-control-request-method") is None:
            return Response(204, "", {"Allow": allow})
        if self.allowed_origin(request) is None:
            raise ApiError("origin_not_allowed",
                           "This Origin is not the origin of a redirect URI registered by a public client "
                           "of this environment, so a browser may not call this endpoint from it.")
        return Response(204, "", {
            "Access-Control-Allow-Methods": ", ".join(self.methods),
            "Access-Control-Allow-Headers": ", ".join(ALLOWED_HEADERS),
            "Access-Control-Max-Age": str(MAX_AGE_SECONDS),
            "Allow": allow,
        })

    def apply(self, request: Request, response: Response, *, preflight: bool = False) -> None:
        """Add the CORS response headers, and Vary wherever a cache could otherwise mix origins up."""
        cacheable = request.method in ("GET", "HEAD") and "no-store" not in (response.get_header("Cache-Control") or "")
        if request.header("origin") is not None or cacheable:
            vary = ["Origin", *(("Access-Control-Request-Method", "Access-Control-Request-Headers")
                                if preflight else ())]
            existing = [v.strip() for v in (response.get_header("Vary") or "").split(",") if v.strip()]
            response.set_header("Vary", ", ".join(dict.fromkeys([*existing, *vary])))
        origin = self.allowed_origin(request)
        if origin is None:
            return
        response.set_header("Access-Control-Allow-Origin", origin)
        if not preflight:
            response.set_header("Access-Control-Expose-Headers", ", ".join(EXPOSED_HEADERS))
