"""One Lambda function = one App: event in, route, render every failure in one place, result out.

API Gateway already routes by resource; the App maps (resource, method) to a handler. A known
resource with another method is 405 with Allow; anything else is 404. Every response carries
the correlation headers and the request context's response headers (http.context); every
failure is an ApiError rendered for the route's surface (http.shapes). A domain exception (a
store's, say) becomes an ApiError through the function's `translate` mapping (authgate.failures);
anything else is a 500 internal_error whose trace goes to the log only.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from authgate import snapstart
from authgate.audit.origin import bind, bind_request
from authgate.errors import ApiError
from authgate.http.correlation import correlate
from authgate.http.cors import CorsPolicy
from authgate.http.metrics import record_response
from authgate.http.negotiation import check_jsonapi_media_types
from authgate.http.request import Request
from authgate.http.response import Response
from authgate.http.shapes.render import Surface, render_error
from authgate.logs import get_logger, info_line, set_correlation_id
from authgate.settings import get_settings

Handler = Callable[[Request], Response]
# A function's mapping of domain exceptions to the ApiError a client sees (None: not a domain
# exception, so a 500).
Translate = Callable[[Exception], "ApiError | None"]


class Route(NamedTuple):
    """A route's handler and surface. `handler` may be "module:function", imported on the route's
    first request: a cold start pays only for the routes its first request uses (a function
    serving several routes, like token with PAR, revocation and introspection, loads the others
    when they are first called)."""

    handler: Handler | str
    surface: Surface = "api"


class App:
    """Dispatch table of one function, plus the single error boundary."""

    def __init__(self, name: str, routes: Mapping[tuple[str, str], Route], *,
                 translate: Translate | None = None,
                 cors: Mapping[str, CorsPolicy] | None = None) -> None:
        self.name = name
        self.routes = dict(routes)
        self.translate = translate
        # Resources browsers may call cross-origin (authgate.http.cors); they also answer OPTIONS.
        self.cors = dict(cors or {})
        self._loaded: dict[str, Handler] = {}
        self._methods: dict[str, list[str]] = {}
        for resource, method in self.routes:
            self._methods.setdefault(resource, []).append(method)
        for resource in self.cors:
            self._methods.setdefault(resource, []).append("OPTIONS")
        snapstart.register(self.prime)

    def prime(self) -> None:
        """Import every route's handler module now (a SnapStart init: the snapshot holds them)."""
        for route in self.routes.values():
            if not callable(route.handler):
                self._load(route.handler)

    def allowed_methods(self, resource: str) -> list[str]:
        return sorted(self._methods.get(resource, []))

    def surface_of(self, resource: str, route: Route | None) -> Surface:
        """A 405 on an OAuth resource still speaks OAuth: the surface of the resource's routes."""
        if route is not None:
            return route.surface
        surfaces = {r.surface for (res, _), r in self.routes.items() if res == resource}
        return surfaces.pop() if len(surfaces) == 1 else "api"

    def __call__(self, event: Mapping[str, Any], context: Any = None) -> dict[str, Any]:
        return self.handle(event, context).to_proxy()

    def handle(self, event: Mapping[str, Any], context: Any = None) -> Response:
        started = time.perf_counter()
        logger = get_logger()
        request: Request | None = None
        surface: Surface = "api"
        # Until the event parses, the gateway's id is all we have; a warm container must not
        # carry the previous invocation's id into this one's logs.
        corr = correlate(None, None, None, _gateway_request_id(event) or "")
        set_correlation_id(corr.request_id)
        bind("", None, corr.request_id)
        try:
            try:
                request = Request.from_event(event)
            except ApiError:
                request = Request.unparsed(event, corr.request_id)
                raise
            corr = correlate(request.header("x-request-id"), request.header("x-correlation-id"),
                             request.header("traceparent"), request.gateway_request_id)
            request.request_id = corr.request_id
            set_correlation_id(corr.request_id)
            # Every audit event this request records says where it came from (authgate.audit.origin).
            bind_request(request, corr.request_id)
            route = self.routes.get((request.resource, request.method))
            surface = self.surface_of(request.resource, route)
            policy = self.cors.get(request.resource)
            if policy is not None and request.method == "OPTIONS" and route is None:
                response = policy.preflight(request)
            else:
                response = self._dispatch(request, route)
        except ApiError as error:
            response = self._render(error, request, surface)
        except Exception as exc:  # the one top-level boundary: nothing internal reaches the client
            translated = self.translate(exc) if self.translate is not None else None
            if translated is None:
                logger.exception("unhandled exception", extra={"function": self.name})
                translated = ApiError("internal_error", "An unexpected error occurred.")
            response = self._render(translated, request, surface)
        for name, value in corr.headers().items():
            response.set_header(name, value)
        if request is not None and request.resource in self.cors:
            self.cors[request.resource].apply(request, response, preflight=request.method == "OPTIONS")
        if request is not None:
            # Headers a component attached to the request for whatever response it gets (the
            # limiter's RateLimit fields also ride on a 404 or 422 of a counted request); an
            # error's own header of the same name (a 429's) is the same value or more precise.
            for name, value in request.context.response_headers.items():
                if response.get_header(name) is None:
                    response.set_header(name, value)
        self._log(request, response, started)
        # EMF counts by error code (alarms: invalid_token spike, 429s, storage throttling).
        record_response(self.name, response)
        return response

    def _dispatch(self, request: Request, route: Route | None) -> Response:
        if route is None:
            allowed = self.allowed_methods(request.resource)
            if allowed:
                raise ApiError("method_not_allowed", f"{request.method} is not allowed on {request.resource}.",
                               headers={"Allow": ", ".join(allowed)})
            raise ApiError("not_found", f"No route for {request.method} {request.path}.")
        limit = get_settings().max_body_bytes
        if len(request.body) > limit:
            raise ApiError("payload_too_large", f"The request body exceeds {limit} bytes.")
        if route.surface == "api":
            check_jsonapi_media_types(request)
        handler = route.handler if callable(route.handler) else self._load(route.handler)
        return handler(request)

    def _load(self, path: str) -> Handler:
        handler = self._loaded.get(path)
        if handler is None:
            module, _, name = path.partition(":")
            handler = self._loaded[path] = getattr(importlib.import_module(module), name)
        return handler

    def _render(self, error: ApiError, request: Request | None, surface: Surface) -> Response:
        if error.status >= 500 or error.internal:
            get_logger().warning("request failed", extra={"error_code": error.code, "status": error.status,
                                                          "internal": error.internal})
        response = render_error(error, request, surface)
        response.error_code = error.code
        return response

    def _log(self, request: Request | None, response: Response, started: float) -> None:
        info_line("request", {
            "function": self.name,
            "method": request.method if request else None,
            "resource": request.resource if request else None,
            "path": request.path if request else None,
            "status": response.status,
            # Not "code": the log redaction masks that key (it also names OAuth authorization codes).
            "error_code": response.error_code or None,
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
            "request_id": request.request_id if request else None,
        })


def _gateway_request_id(event: Any) -> str | None:
    ctx = event.get("requestContext") if isinstance(event, Mapping) else None
    value = ctx.get("requestId") if isinstance(ctx, Mapping) else None
    return value if isinstance(value, str) else None
