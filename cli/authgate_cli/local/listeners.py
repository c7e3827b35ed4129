"""The sockets of a local stack and the Hypercorn loop that serves them until Ctrl-C or SIGTERM.

Sockets are bound first, before moto starts or a table is created, so a busy port fails at
once and port 0 picks a free one; Hypercorn then serves them by file descriptor. Timeouts
(RFC 9112 9.8 lets a server close an idle connection at any time):
- `idle`: a connection with no complete request head this long after it opened, or after its
  last response, is closed (Hypercorn's keep-alive timer, which runs until the head is complete,
  so a client trickling header lines one by one is cut off too);
- `read`: a connection whose body stalls this long mid-request is closed.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

# Handlers are synchronous and block on moto over HTTP; a browser opens about six connections.
HANDLER_THREADS = 32


@dataclass(frozen=True)
class Timeouts:
    idle: float = 30.0
    read: float = 30.0


@dataclass
class Site:
    """One listening socket and the ASGI application behind it."""

    sock: socket.socket
    app: Callable[..., Any]
    port: int = field(init=False)

    def __post_init__(self) -> None:
        self.port = int(self.sock.getsockname()[1])


def listen(host: str, port: int) -> socket.socket:
    """A bound, listening TCP socket (OSError when the port is taken or the address is not local)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        # Not SO_REUSEPORT: a second server on a busy port must fail, not share it.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def run(sites: list[Site], timeouts: Timeouts) -> None:
    """Serve every site until SIGINT or SIGTERM; in-flight requests get a few seconds to finish."""
    asyncio.run(_serve(sites, timeouts))


async def _serve(sites: list[Site], timeouts: Timeouts) -> None:
    from hypercorn.asyncio import serve

    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(HANDLER_THREADS, thread_name_prefix="handler"))
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await asyncio.gather(*(serve(site.app, _config(site, timeouts), shutdown_trigger=stop.wait, mode="asgi")
                               for site in sites))
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)


def _config(site: Site, timeouts: Timeouts) -> Any:
    from hypercorn.config import Config

    config = Config()
    # Hypercorn adopts the descriptor; detach ours so the socket is closed once, by Hypercorn.
    config.bind = [f"fd://{site.sock.detach()}"]
    config.keep_alive_timeout = timeouts.idle
    config.read_timeout = timeouts.read
    config.graceful_timeout = 3.0
    config.include_server_header = False  # API Gateway sends none either
    config.accesslog = None  # the emulator writes its own line per request
    # Hypercorn's own messages (start-up lines, a failure inside Hypercorn) only when they matter.
    errors = logging.getLogger("authgate.hypercorn")
    errors.setLevel(logging.WARNING)
    config.errorlog = errors
    return config
