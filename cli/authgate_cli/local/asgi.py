"""The emulator on the wire: an ASGI application that Hypercorn serves (RFC 9112 framing by h11).

Hypercorn and h11 refuse malformed messages before they reach this module, with 400 (431 for
an oversized head, 501 for a transfer coding other than chunked) and `Connection: close`: two
different Content-Lengths (RFC 9112 6.3), a bare CR or LF inside a field (2.2), a request line
without a version (3), an invalid chunk size (7.1), a request-target that is not ASCII (3.2),
whitespace before a field's colon (5.1). The one ambiguity they leave open is a request with
both Content-Length and Transfer-Encoding: RFC 9112 6.1 lets a server process it by its
Transfer-Encoding but requires closing the connection afterwards, which h11 does not do. This
module refuses such a request with 400 and closes, so bytes hidden in its body are never read
as a second request.

Everything else becomes an `HttpRequest` for `Emulator.handle`, which runs in a worker thread
(handlers are synchronous, as on Lambda) while the event loop keeps serving other connections.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from authgate_cli.local import events
from authgate_cli.local.server import MAX_PAYLOAD_BYTES, Emulator, Reply

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
Handler = Callable[[events.HttpRequest], Reply]

# Response headers the transport owns: framing is computed from the body actually sent.
_HOP_BY_HOP = frozenset({"content-length", "transfer-encoding", "connection", "keep-alive"})


class ClientGone(Exception):
    """The client closed the connection before its request was read."""


class GatewayApp:
    """ASGI application: the local API Gateway in front of `emulator`."""

    def __init__(self, emulator: Emulator) -> None:
        self.emulator = emulator

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        if scope["type"] != "http":  # websockets: API Gateway REST has none
            return
        request = http_request(scope)
        if request.header("content-length") is not None and request.header("transfer-encoding") is not None:
            reply = self.emulator.refuse(request, "BAD_REQUEST_BODY",
                                         "The request has both Content-Length and Transfer-Encoding "
                                         "(ambiguous framing, RFC 9112 6.1).")
            await respond(send, reply, close=True)
            return
        try:
            request.body, request.too_large = await read_body(receive, request.header("content-length"))
        except ClientGone:
            return  # nobody to answer, and nothing to log as a failure of ours
        reply = await asyncio.get_running_loop().run_in_executor(None, self.emulator.handle, request)
        # A body left unread (too large) must not be parsed as the next request.
        await respond(send, reply, close=request.too_large)


def http_request(scope: Scope) -> events.HttpRequest:
    """The request line and fields as API Gateway sees them (the path still percent-encoded)."""
    headers = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in scope["headers"]]
    raw_path = scope.get("raw_path") or scope["path"].encode("utf-8")
    client = scope.get("client") or ("127.0.0.1", 0)
    return events.HttpRequest(method=scope["method"], path=raw_path.decode("ascii") or "/",
                              raw_query=scope.get("query_string", b"").decode("latin-1"),
                              headers=headers, source_ip=client[0])


async def read_body(receive: Receive, content_length: str | None) -> tuple[bytes, bool]:
    """(body, too_large): the body, or what was read of it once it passed API Gateway's 10 MB."""
    if content_length is not None and content_length.isdigit() and int(content_length) > MAX_PAYLOAD_BYTES:
        return b"", True  # declared too large: not read at all
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_PAYLOAD_BYTES:
            return b"", True
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), False


async def respond(send: Send, reply: Reply, *, close: bool = False) -> None:
    """Send `reply`; Content-Length from its body; `Connection: close` when the connection must end."""
    headers = [(name.lower().encode("latin-1"), value.encode("latin-1"))
               for name, value in reply.headers if name.lower() not in _HOP_BY_HOP]
    headers.append((b"content-length", str(len(reply.body)).encode("ascii")))
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": reply.status, "headers": headers})
    await send({"type": "http.response.body", "body": reply.body})


async def lifespan(receive: Receive, send: Send) -> None:
    """ASGI lifespan: nothing to start or stop here (the stack is ready before the socket serves)."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
