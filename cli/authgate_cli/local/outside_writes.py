"""Admin changes show at once on a local stack: a write to its AWS from outside its functions drops their caches.

A function keeps tenants, clients, resources, identity providers and signing keys in warm caches
(authgate.caches) for up to 60 s, so on a stage an `authgate tenants|clients|resources|idps|keys`
change reaches a warm function within a minute. A local stack is one process, so it can do better:
`authgate serve` runs its moto on two loopback ports (authgate_cli.local.embedded), one for its own
functions and one for everything else, the one its state file and banner name (admin commands, the
aws CLI). A call on that one that may change something (an operation named as no read, after moto
applied it) is noted here, and the emulator forgets every warm cache before its next request, as a
cold container would. Nothing of this exists on a stage, where the 60 s stand; with an external
`--dynamodb-endpoint` the tables are not behind this moto, and the 60 s stand locally too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

# Operations (X-Amz-Target `Service.Operation`: DynamoDB, Secrets Manager, KMS) that only read; any other may
# write, and is noted (a read taken for a write costs one cold request, never a stale answer).
READS = ("Get", "List", "Describe", "Query", "Scan", "BatchGet", "TransactGet")

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class OutsideWrites:
    """Whether a write from outside the functions came since the emulator last looked (shared by threads)."""

    def __init__(self) -> None:
        self._noted = threading.Event()

    def note(self) -> None:
        self._noted.set()

    def take(self) -> bool:
        """True once for the writes noted since the last call; a write noted meanwhile is seen by the next one."""
        if not self._noted.is_set():
            return False
        self._noted.clear()
        return True


def is_write(target: str) -> bool:
    """Whether an X-Amz-Target names an operation that may change something."""
    return bool(target) and not target.rpartition(".")[2].startswith(READS)


def watching(app: WsgiApp, writes: OutsideWrites) -> WsgiApp:
    """`app` (moto's WSGI application) noting each call that may write, once moto has applied it."""

    def watched(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        answer = app(environ, start_response)  # moto's Flask view has run when this returns
        if is_write(environ.get("HTTP_X_AMZ_TARGET", "")):
            writes.note()
        return answer

    return watched
