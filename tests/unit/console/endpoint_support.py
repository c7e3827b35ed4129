"""A stand-in for the stack's token and UserInfo endpoints, as the console's own client meets them over HTTP: a real
server on a free loopback port that answers each path as the test set it, and keeps what it was sent."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Endpoints:
    """`answers[path]`: (status, headers, body) of the next requests to `path` (404 otherwise); `sent`: every request
    (method, path, headers with lower-case names, body)."""

    url: str
    answers: dict[str, tuple[int, dict[str, str], bytes]] = field(default_factory=dict)
    sent: list[tuple[str, str, dict[str, str], bytes]] = field(default_factory=list)

    def answer(self, path: str, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        """Answer `path` with `status` and `body` (bytes as they are, anything else as JSON)."""
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.answers[path] = (status, {"Content-Type": "application/json", **(headers or {})}, raw)


@contextmanager
def endpoints() -> Iterator[Endpoints]:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            path = self.path.partition("?")[0]
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            stand_in.sent.append((self.command, path, {k.lower(): v for k, v in self.headers.items()}, body))
            status, headers, raw = stand_in.answers.get(path, (404, {}, b""))
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        do_GET = do_POST = _answer

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    stand_in = Endpoints(f"http://127.0.0.1:{server.server_port}")  # the handler's, once a request comes
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield stand_in
    finally:
        server.shutdown()
        server.server_close()
