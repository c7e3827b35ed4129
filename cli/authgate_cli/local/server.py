"""The local API Gateway (REST) emulator behind `authgate serve`.

Routes come only from template.yaml. Each HTTP request becomes a REST proxy event (payload
1.0) and the matched function's handler runs in this process, in a thread per connection.
What API Gateway itself answers (no route, bad API key, a crashed integration) is the
template's gateway response (authgate_cli.local.gateway renders it). One JSON line per request goes to stdout: request id, method,
path (never the query string or a header value), status and duration.
"""

from __future__ import annotations

import base64
import json
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TextIO
from urllib.parse import urlsplit

from authgate_cli.local import events
from authgate_cli.local.context import LambdaContext
from authgate_cli.local.functions import load_handler
from authgate_cli.local.routing import Router
from authgate_cli.local.template import ApiRoute

# API Gateway's REST payload limit.
MAX_PAYLOAD_BYTES = 10 * 1024 * 1024
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

    def admit(self, api_key: str | None, usage_plan: str | None, route: ApiRoute) -> str | None:
        """Usage-plan hook, called per request before the handler: None admits, else a gateway
        response type (THROTTLED, QUOTA_EXCEEDED). As on API Gateway, plans only apply to
        methods that require an API key."""
        if not route.api_key_required or not api_key or not usage_plan:
            return None
        return self.usage_plans.admit(api_key, usage_plan)

    def handle(self, request: events.HttpRequest) -> Reply:
        started = time.perf_counter()
        request_id, extended_id = str(uuid.uuid4()), events.extended_request_id()
        reply = self._handle(request, request_id, extended_id)
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
    body = result.get("body") or ""
    raw = base64.b64decode(body) if result.get("isBase64Encoded") else str(body).encode("utf-8")
    return Reply(result["statusCode"], [(k, v) for k, vs in merged.items() for v in vs], raw)


class _HttpHandler(BaseHTTPRequestHandler):
    """Turns each HTTP/1.1 request into an HttpRequest for the emulator; keep-alive supported."""

    protocol_version = "HTTP/1.1"
    server_version = "authgate-emulator"
    sys_version = ""
    emulator: Emulator  # set on the subclass made by make_server

    def _serve(self) -> None:
        try:
            body = self._read_body()
        except ValueError:
            self.send_error(400, "Bad request body framing")
            return
        split = urlsplit(self.path)
        request = events.HttpRequest(method=self.command, path=split.path or "/", raw_query=split.query,
                                     headers=list(self.headers.items()), body=body or b"",
                                     source_ip=self.client_address[0], too_large=body is None)
        reply = self.emulator.handle(request)
        self._write(reply)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _serve

    def _read_body(self) -> bytes | None:
        """The body (chunked or Content-Length framed); None when it exceeds API Gateway's limit."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
                if sum(map(len, chunks)) > MAX_PAYLOAD_BYTES:
                    self.close_connection = True
                    return None
        length = int(self.headers.get("Content-Length") or 0)
        if length < 0:
            raise ValueError("negative Content-Length")
        if length > MAX_PAYLOAD_BYTES:
            # Not read: answer 413 and close the connection rather than drain that much.
            self.close_connection = True
            return None
        return self.rfile.read(length)

    def _write(self, reply: Reply) -> None:
        self.send_response_only(reply.status)
        skip = {"content-length", "connection", "transfer-encoding"}
        for name, value in reply.headers:
            if name.lower() not in skip:
                self.send_header(name, value)
        self.send_header("Date", self.date_time_string())
        self.send_header("Content-Length", str(len(reply.body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(reply.body)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own errors (bad request line, unknown method) as problem+json, never HTML."""
        self.close_connection = True
        codes = {400: "invalid_request", 405: "method_not_allowed", 413: "payload_too_large",
                 414: "invalid_request", 431: "invalid_request", 501: "method_not_allowed"}
        status = 405 if code == 501 else code
        problem_code = codes.get(code, "invalid_request")
        trace = str(uuid.uuid4())
        body = json.dumps({"type": f"{self.emulator.issuer}/problems/{problem_code}",
                           "title": message or "Bad request", "status": status,
                           "detail": message or "", "instance": "", "code": problem_code,
                           "traceId": trace}).encode("utf-8")
        headers = [("Content-Type", "application/problem+json"), ("x-request-id", trace)]
        if status == 405:
            headers.append(("Allow", "DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT"))
        if getattr(self, "command", None) is None:
            self.command = "GET"
        self._write(Reply(status, headers, body))

    def log_message(self, format: str, *args: Any) -> None:
        """Silenced: the emulator writes its own structured line per request."""


def make_server(emulator: Emulator, host: str, port: int) -> ThreadingHTTPServer:
    """Bind (raises OSError when the port is taken); serve with `serve_forever()`."""
    handler = type("Handler", (_HttpHandler,), {"emulator": emulator})
    server = _Server((host, port), handler)
    server.daemon_threads = True
    return server


class _Server(ThreadingHTTPServer):
    # The default listen backlog (5) resets connections under a burst of concurrent clients
    # (seen with 16 parallel POSTs); API Gateway never does that, so neither should the emulator.
    request_queue_size = 128
