"""The local stack's audit trail: its handlers' audit lines kept as a deployed stage keeps them.

On a stage the functions' audit lines reach the audit function through a log subscription and a
stream (docs/audit.md). Here the handlers run in this process: `AuditTap`, a handler on the
service's logger, takes each audit line as it is written, and `AuditPump` hands them, a batch at
a time, to the audit function's own handler (functions/audit/app.py) as stream records, on a
background thread: the chained objects go to the trail's directory (AUTHGATE_AUDIT_DIR: under
`--data`, else beside the server's state file). No request waits for it; a batch the handler
refuses (a directory it cannot write, signals it could neither queue nor park) is tried again, as
the same records. Admin commands in another terminal append their events to the same directory
through the same handler (`deliver`).
"""

from __future__ import annotations

import base64
import itertools
import logging
import os
import threading
from collections.abc import Sequence
from typing import Any

INTERVAL = 0.2  # seconds between batches: what `authgate events tail` waits at most
RETRY_SECONDS = 1.0
_SEQUENCE = itertools.count(1)


def records(lines: Sequence[str]) -> list[dict[str, Any]]:
    """`lines` as the audit stream's records, on a shard of this process's own (a chain's head remembers
    the position it kept up to: another process's numbers must never look older)."""
    shard = f"local-{os.getpid()}"
    out = []
    for line in lines:
        number = next(_SEQUENCE)
        out.append({"eventSource": "aws:kinesis", "eventID": f"{shard}:{number}",
                    "kinesis": {"data": base64.b64encode(line.encode("utf-8")).decode("ascii"),
                                "sequenceNumber": str(number), "partitionKey": shard}})
    return out


def deliver(lines: Sequence[str]) -> None:
    """Keep `lines` as the audit function does (its handler, on their records); raises when it cannot."""
    consume(records(lines))


def consume(batch: list[dict[str, Any]]) -> None:
    """The audit function's handler on these stream records; raises when it cannot keep or signal them."""
    from authgate_cli.local.functions import load_handler

    if batch:
        load_handler("audit")({"Records": batch}, None)


class AuditTap(logging.Handler):
    """Takes every audit line the service's logger writes (a record marked authgate_audit)."""

    def __init__(self, pump: AuditPump) -> None:
        super().__init__(level=logging.DEBUG)
        self.pump = pump
        from authgate.logs import FORMATTER

        self.setFormatter(FORMATTER)

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, "authgate_audit", None) == 1:
            self.pump.put(self.format(record))


class AuditPump:
    """Hands the tapped lines to the audit function's handler on a daemon thread until `stop`."""

    def __init__(self) -> None:
        # Stream records, numbered when tapped: a batch tried again is the same records, which the trail
        # finds kept already (as the stream delivers a batch again).
        self._pending: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="authgate-audit", daemon=True)
        self.tap = AuditTap(self)

    def put(self, line: str) -> None:
        with self._lock:
            self._pending += records([line])

    def start(self) -> None:
        from authgate.logs import get_logger

        get_logger().addHandler(self.tap)
        self._thread.start()

    def stop(self) -> None:
        """Stop tapping, then keep what is left."""
        from authgate.logs import get_logger

        get_logger().removeHandler(self.tap)
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        self.flush()

    def flush(self) -> bool:
        """Keep every line tapped so far; False (and the lines kept for later) when the handler fails."""
        with self._lock:
            batch, self._pending = self._pending, []
        try:
            consume(batch)
        except Exception:  # noqa: BLE001 - the directory unwritable, say: nothing is lost, try again
            with self._lock:
                self._pending[:0] = batch
            return False
        return True

    def _run(self) -> None:
        while not self._stopping.wait(INTERVAL):
            if not self.flush():
                self._stopping.wait(RETRY_SECONDS)
