"""The local API Gateway (REST) emulator behind `authgate serve`: one request in, one reply out.

Routes come only from template.yaml. Each HTTP request becomes a REST proxy event (payload
1.0) and the matched function's handler runs in this process. What API Gateway itself answers
(no route, bad API key, a crashed integration) is the template's gateway response
(authgate_cli.local.gateway renders it). One JSON line per request goes to the log: request id,
method, path (never the query string or a header value), status and duration. The wire is
authgate_cli.local.asgi's business; nothing here touches a socket.
"""

from __future__ import annotations

import base64
import json
import re
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO
from urllib.parse import urlsplit

from authgate_cli.local import events
from authgate_cli.local.context import LambdaContext
from authgate_cli.local.functions import load_handler
from authgate_cli.local.outside_writes import OutsideWrites
from authgate_cli.local.routing import Router
from authgate_cli.local.template import ApiRoute

# API Gateway's REST payload limit.
MAX_PAYLOAD_BYTES = 10 * 1024 * 1024
# Lambda's limit on a synchronous invocation's request (AWS Lambda quotas, "Invocation payload
# (request and response)", 6 MB): the proxy event as JSON, headers and base64 included. Over it
# Lambda refuses the invoke (RequestEntityTooLargeException) and the function never runs.
MAX_INVOKE_PAYLOAD_BYTES = 6 * 1024 * 1024
# A field a response may carry (RFC 9110 5.1, 5.5: a token name; visible Latin-1 text, no CR/LF).
_FIELD_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_FIELD_VALUE = re.compile(r"[\t\x20-\x7e\x80-\xff]*")


def invoke_payload_size(event: Mapping[str, Any]) -> int:
    """Bytes of the Invoke request Lambda receives for `event` (its JSON)."""
    return len(json.dumps(event, separators=(",", ":")).encode("utf-8"))


@dataclass
class Reply:
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    request_id: str = ""


def _usage_plans() -> Any:
    from authgate_cli.local.usage_plans import UsagePlanEnforcer

    return UsagePlanEnforcer.from_template()


@dataclass
class Emulator:
    """Routes, API keys and handlers of one local API; `handle` is one request, no sockets."""

    router: Router
    issuer: str
    # API key value -> usage plan name (the seed file's "api_keys" section).
    api_keys: Mapping[str, str] = field(default_factory=dict)
    stage: str = "local"
    log: TextIO | None = None
    load: Callable[[str], Callable[[dict[str, Any], Any], dict[str, Any]]] = load_handler
    _log_lock: threading.Lock = field(default_factory=threading.Lock)
    # The template's usage plans (authgate_cli.local.usage_plans.UsagePlanEnforcer).
    usage_plans: Any = field(default_factory=_usage_plans)
    # Writes of other processes to the stack's AWS: each drops the warm caches before the next request
    # (authgate_cli.local.outside_writes); None: none are watched.
    outside_writes: OutsideWrites | None = None

    def admit(self, api_key: str | None, usage_plan: str | None, route: ApiRoute) -> str | None:
        """Usage-plan hook, called per request before the handler: None admits, else a gateway
        response type (THROTTLED, QUOTA_EXCEEDED). As on API Gateway, plans only apply to
        methods that require an API key."""
        if not route.api_key_required or not api_key or not usage_plan:
            return None
        return self.usage_plans.admit(api_key, usage_plan)

    def handle(self, request: events.HttpRequest) -> Reply:
        """One request through the gateway: route, API key, usage plan, integration."""
        if self.outside_writes is not None and self.outside_writes.take():
            from authgate_cli.local.stack import reset_caches

            reset_caches()  # an admin command changed something: the next request sees it, as a cold one would
        return self._answer(request, lambda request_id, extended_id: self._handle(request, request_id, extended_id))

    def refuse(self, request: events.HttpRequest, response_type: str, message: str) -> Reply:
        """A request the gateway refuses before routing (e.g. ambiguous framing, RFC 9112 6.1)."""
        def reply(request_id: str, extended_id: str) -> Reply:
            ctx = {"requestId": request_id, "extendedRequestId": extended_id, "path": request.path,
                   "httpMethod": request.method, "stage": self.stage,
                   "identity.sourceIp": request.source_ip, "error.message": message}
            return self.gateway_response(response_type, ctx, request)

        return self._answer(request, reply)

    def _answer(self, request: events.HttpRequest, make: Callable[[str, str], Reply]) -> Reply:
        started = time.perf_counter()
        request_id, extended_id = str(uuid.uuid4()), events.extended_request_id()
        reply = make(request_id, extended_id)
        # API Gateway adds its own ids to every response, whatever the integration returned.
        reply.headers += [("x-amzn-RequestId", request_id), ("x-amz-apigw-id", extended_id)]
        reply.request_id = _header(reply.headers, "x-request-id") or request_id
        self._log_line(request, reply, request_id, started)
        return reply

    def _handle(self, request: events.HttpRequest, request_id: str, extended_id: str) -> Reply:
        ctx = {"requestId": request_id, "extendedRequestId": extended_id, "path": request.path,
               "httpMethod": request.method, "stage": self.stage,
               "identity.sourceIp": request.source_ip}
        if request.too_large or len(request.body) > MAX_PAYLOAD_BYTES:
            return self.gateway_response("REQUEST_TOO_LARGE", ctx, request)
        match = self.router.match(request.method, request.path)
        if match is None:
            return self.gateway_response("MISSING_AUTHENTICATION_TOKEN", ctx, request)
        route = match.route
        ctx["resourcePath"] = route.path
        api_key = request.header("x-api-key")
        plan = self.api_keys.get(api_key) if api_key else None
        if route.api_key_required and plan is None:
            return self.gateway_response("INVALID_API_KEY", ctx, request)
        rejected = self.admit(api_key if plan else None, plan, route)
        if rejected:
            return self.gateway_response(rejected, ctx, request)
        event = events.build_event(request, resource=route.path, path_params=match.path_params,
                                   stage=self.stage, api_key=api_key if plan else None,
                                   request_id=request_id, extended_id=extended_id)
        if len(request.body) > MAX_INVOKE_PAYLOAD_BYTES // 2 and invoke_payload_size(event) > MAX_INVOKE_PAYLOAD_BYTES:
            # The gateway's integration failed: its INTEGRATION_FAILURE response, not the function's 413.
            return self.gateway_response("INTEGRATION_FAILURE", ctx, request)
        try:
            handler = self.load(route.function)
            result = handler(event, LambdaContext(route.function))
            return _from_proxy_result(result)
        except Exception as exc:  # noqa: BLE001 - the integration failed: API Gateway answers
            sys.stderr.write(f"handler {route.function} failed on {request.method} {route.path}: "
                             f"{type(exc).__name__}\n{traceback.format_exc()}")
            return self.gateway_response("INTEGRATION_FAILURE", ctx, request)

    def gateway_response(self, response_type: str, context: dict[str, Any],
                         request: events.HttpRequest | None = None) -> Reply:
        """The template's gateway response of this type (problem+json, never HTML)."""
        context = {"domainName": urlsplit(self.issuer).hostname or "127.0.0.1", "issuer": self.issuer,
                   **context}
        from authgate_cli.local.gateway import render_gateway_response

        request_headers = {k.lower(): v for k, v in request.headers} if request else None
        status, headers, body = render_gateway_response(response_type, context, request_headers)
        items = list(headers.items()) if isinstance(headers, Mapping) else list(headers)
        return Reply(status, items, body.encode("utf-8") if isinstance(body, str) else body)

    def _log_line(self, request: events.HttpRequest, reply: Reply, gateway_id: str, started: float) -> None:
        if self.log is None:
            return
        line = json.dumps({
            "level": "INFO", "message": "request", "service": "authgate-emulator",
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "request_id": reply.request_id, "gateway_request_id": gateway_id,
            "method": request.method, "path": request.path, "status": reply.status,
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
        })
        with self._log_lock:
            self.log.write(line + "\n")
            self.log.flush()


def _header(headers: list[tuple[str, str]], name: str) -> str | None:
    for key, value in headers:
        if key.lower() == name:
            return value
    return None


def _from_proxy_result(result: Any) -> Reply:
    """API Gateway's reading of a proxy result; a malformed one is an integration failure."""
    if not isinstance(result, dict) or not isinstance(result.get("statusCode"), int):
        raise TypeError("Malformed Lambda proxy response")
    merged: dict[str, list[str]] = {}
    # Like API Gateway: both maps are merged; a name in multiValueHeaders takes its values from there.
    for name, value in (result.get("headers") or {}).items():
        merged[name] = [str(value)]
    for name, values in (result.get("multiValueHeaders") or {}).items():
        merged[name] = [str(v) for v in values]
    for name, values in merged.items():
        if not _FIELD_NAME.fullmatch(name) or not all(_FIELD_VALUE.fullmatch(v) for v in values):
            raise TypeError(f"Malformed header {name!r} in the Lambda proxy response")
    body = result.get("body") or ""
    raw = base64.b64decode(body) if result.get("isBase64Encoded") else str(body).encode("utf-8")
    return Reply(result["statusCode"], [(k, v) for k, vs in merged.items() for v in vs], raw)
