"""A real HTTPS server on 127.0.0.1 serving client metadata documents, and the CA that signed it.

Tests of the metadata fetcher and of whole flows serve documents here: a CA made for the test
run (cryptography), a certificate for `localhost`, 127.0.0.1 and the test names in NAMES, and
routes a test sets (body, status, headers, a slow drip).
"""

from __future__ import annotations

import json
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pytest

# Names a test's resolver points at 127.0.0.1 (the certificate covers them).
NAMES = ("localhost", "client.example", "rebind.example", "tools.example")


@dataclass
class Route:
    """What one path answers."""

    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "application/json"})
    # Seconds to wait between 16-byte pieces of the body (a slow drip); 0 sends it at once.
    drip: float = 0.0
    # False: no Content-Length; the body ends when the connection closes (a length that lies by omission).
    length: bool = True
    # Seconds to wait between single bytes of the status line and headers (a header drip); 0: at once.
    header_drip: float = 0.0
    # The body in chunks of 16 bytes (Transfer-Encoding: chunked), `drip` seconds apart; with
    # `chunk_extension` (RFC 9112 7.1.1), each chunk's size line carries it and is sent a byte at a time.
    chunked: bool = False
    chunk_extension: str = ""


def make_ca(directory: Path) -> tuple[Path, Path, Path]:
    """A CA and a server certificate signed by it, as PEM files: (ca, cert, key). The MCP example's own
    (examples/mcp/metadata_document.py), for the names tests point at 127.0.0.1."""
    from tests.examples import module

    return module("metadata_document").make_ca(directory, names=NAMES, addresses=("127.0.0.1",))  # type: ignore[no-any-return]


def loopback(host: str, port: int) -> list[str]:
    """A resolver that answers 127.0.0.1 for every name (the test's DNS)."""
    return ["127.0.0.1"]


class DocumentServer:
    """Routes by path; `requests` records (path, Host header) of each request served."""

    def __init__(self, server: ThreadingHTTPServer, ca: Path) -> None:
        self._server = server
        self.ca = ca
        self.port = server.server_address[1]
        self.routes: dict[str, Route] = {}
        self.requests: list[tuple[str, str]] = []
        # POSTs received: (path, Content-Type, body), for receivers of outbound calls (back-channel logout).
        self.posts: list[tuple[str, str, bytes]] = []
        # The headers of each POST, in the same order (a signed webhook's signature header).
        self.post_headers: list[dict[str, str]] = []
        # Answers for POSTs to a path, one per request in order (the last repeats); default 200.
        self.post_answers: dict[str, list[Route]] = {}

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"https://{host}:{self.port}{path}"

    def document(self, path: str, host: str = "127.0.0.1", **members: Any) -> str:
        """Serve a valid public-client document at `path`; returns its URL (the client_id)."""
        url = self.url(path, host)
        doc = {"client_id": url, "client_name": "Test Agent", "redirect_uris": ["http://127.0.0.1:9/callback"],
               "token_endpoint_auth_method": "none", "grant_types": ["authorization_code", "refresh_token"],
               "response_types": ["code"], "scope": "charges:read", **members}
        doc = {k: v for k, v in doc.items() if v is not None}
        self.routes[path] = Route(json.dumps(doc).encode(), headers={"Content-Type": "application/json",
                                                                      "Cache-Control": "max-age=600"})
        return url

    def client_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=str(self.ca))
        return context


def _handler(owner: list[DocumentServer]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            server = owner[0]
            length = int(self.headers.get("Content-Length") or 0)
            server.posts.append((self.path, self.headers.get("Content-Type", ""), self.rfile.read(min(length, 65536))))
            server.post_headers.append(dict(self.headers.items()))
            answers = server.post_answers.get(self.path) or [Route(b"", 200, {})]
            self._answer(answers.pop(0) if len(answers) > 1 else answers[0])

        def do_GET(self) -> None:
            server = owner[0]
            server.requests.append((self.path, self.headers.get("Host", "")))
            self._answer(server.routes.get(self.path, Route(b'{"error":"not found"}', 404)))

        def _answer(self, route: Route) -> None:
            head = [f"HTTP/1.1 {route.status} {self.responses.get(route.status, ('',))[0]}"]
            head += [f"Server: {self.version_string()}", f"Date: {self.date_time_string()}"]
            head += [f"{name}: {value}" for name, value in route.headers.items()]
            if route.chunked:
                head.append("Transfer-Encoding: chunked")
            elif route.length:
                head.append(f"Content-Length: {len(route.body)}")
            else:
                head.append("Connection: close")
                self.close_connection = True
            pieces = [route.body[i:i + 16] for i in range(0, len(route.body), 16)]
            if route.chunked:
                extension = f";{route.chunk_extension}".encode() if route.chunk_extension else b""
                lines = [b"%x%s\r\n" % (len(p), extension) for p in pieces] + [b"0\r\n"]
                if extension:  # the size lines a byte at a time, the data as one piece
                    framed = [[line[i:i + 1] for i in range(len(line))] + [p + b"\r\n"]
                              for line, p in zip(lines, [*pieces, b""])]
                    pieces = [piece for chunk in framed for piece in chunk]
                else:
                    pieces = [line + p + b"\r\n" for line, p in zip(lines, [*pieces, b""])]
            try:
                raw_head = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1")
                if route.header_drip:
                    for i in range(len(raw_head)):
                        self.wfile.write(raw_head[i:i + 1])
                        time.sleep(route.header_drip)
                else:
                    self.wfile.write(raw_head)
                if not route.drip:
                    self.wfile.write(b"".join(pieces))
                    return
                for piece in pieces:
                    self.wfile.write(piece)
                    self.wfile.flush()
                    time.sleep(route.drip)
            except OSError:
                self.close_connection = True  # the fetcher hung up: nothing more to send

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def document_server(directory: Path) -> Iterator[DocumentServer]:
    """An HTTPS server on 127.0.0.1 (an ephemeral port) with a fresh CA."""
    ca, cert, key = make_ca(directory)
    owner: list[DocumentServer] = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(owner))
    httpd.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(cert), str(key))
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    owner.append(DocumentServer(httpd, ca))
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield owner[0]
    finally:
        httpd.shutdown()
        httpd.server_close()


def trust_documents(server: DocumentServer, monkeypatch: pytest.MonkeyPatch) -> DocumentServer:
    """The deployment switch on, the local loopback exception, the test CA trusted (SSL_CERT_FILE);
    the server's routes and requests cleared."""
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_CLIENT_METADATA_DOCUMENTS", "true")
    monkeypatch.setenv("AUTHGATE_ALLOW_LOOPBACK_OUTBOUND", "true")
    monkeypatch.setenv("SSL_CERT_FILE", str(server.ca))
    caches.reset()
    server.routes.clear()
    server.requests.clear()
    return server
