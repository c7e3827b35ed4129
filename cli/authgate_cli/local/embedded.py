"""moto's AWS on loopback ports inside the `serve` process.

The server shares this process's moto backends, so `make_dynamodb_atomic()` (applied before it
serves a single request) makes its conditional writes atomic, as real DynamoDB's are. Two ports
serve the same backends: `endpoint` for the stack's own functions, and `outside_endpoint` for
everything else (admin commands in other processes, the aws CLI), whose writes are noted so that
the functions' warm caches are dropped (authgate_cli.local.outside_writes). A function's Invoke of another of the
stack is answered by that function's handler in this process (authgate_cli.local.lambda_invoke).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

from authgate_cli.local.atomic import make_dynamodb_atomic
from authgate_cli.local.lambda_invoke import answer_in_process
from authgate_cli.local.outside_writes import OutsideWrites, watching


@dataclass
class EmbeddedAws:
    """Running moto listeners; `endpoint` (the functions') and `outside_endpoint` are their base URLs."""

    servers: list[Any]
    endpoint: str
    outside_endpoint: str

    def stop(self) -> None:
        for server in self.servers:
            server.shutdown()


def start(writes: OutsideWrites | None = None, host: str = "127.0.0.1") -> EmbeddedAws:
    """Start moto on a free port of `host`, atomic from its first request; given `writes`, on a second one too,
    whose writes are noted there (else `outside_endpoint` is `endpoint`)."""
    make_dynamodb_atomic()
    # A function invoking another (the console's "Rotate now") is answered by that function's handler here.
    answer_in_process()
    # werkzeug logs every moto call to stderr; the emulator logs its own requests instead.
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

    inside = _serve(host, DomainDispatcherApplication(create_backend_app))
    if writes is None:
        return EmbeddedAws([inside], _url(inside), _url(inside))
    outside = _serve(host, watching(DomainDispatcherApplication(create_backend_app), writes))
    return EmbeddedAws([inside, outside], _url(inside), _url(outside))


def _serve(host: str, app: Any) -> Any:
    """A threaded WSGI server on a free port of `host`, serving `app` from a daemon thread (as moto's own)."""
    from moto.moto_server.werkzeug_app import MotoRequestHandler
    from werkzeug.serving import make_server

    server = make_server(host, 0, app, threaded=True, request_handler=MotoRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _url(server: Any) -> str:
    bound_host, bound_port = server.server_address[:2]
    return f"http://{bound_host}:{bound_port}"
