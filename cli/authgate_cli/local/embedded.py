"""moto's AWS on a loopback port inside the `serve` process.

The server shares this process's moto backends, so `make_dynamodb_atomic()` (applied before it
serves a single request) makes its conditional writes atomic, as real DynamoDB's are. Admin
commands in other processes reach the same data through the endpoint in the state file.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from authgate_cli.local.atomic import make_dynamodb_atomic


@dataclass
class EmbeddedAws:
    """A running moto server; `endpoint` is its base URL."""

    server: Any
    endpoint: str

    def stop(self) -> None:
        self.server.stop()


def start(host: str = "127.0.0.1", port: int = 0) -> EmbeddedAws:
    """Start moto on `host:port` (port 0: any free port), atomic from its first request."""
    make_dynamodb_atomic()
    # werkzeug logs every moto call to stderr; the emulator logs its own requests instead.
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address=host, port=port, verbose=False)
    server.start()
    bound_host, bound_port = server.get_host_and_port()
    return EmbeddedAws(server, f"http://{bound_host}:{bound_port}")
