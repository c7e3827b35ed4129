"""Lambda handler: the audit stream's consumer (Kinesis event source; docs/audit.md).

Each batch holds the audit lines the functions wrote (a CloudWatch Logs subscription filter puts
them on the stream) and those admin commands put there themselves. They are kept as the next
object of the chain in the Object Lock bucket, published on the stage's event bus and handed to
the Shared Signals transmitter (authgate.audit_trail.consumer). A failure to keep them raises: the
event source delivers the batch again, in order, until it is kept. Signals that cannot be queued
wait on the deliveries queue for a retry of their own (authgate.deliveries.pending_signals).
"""

from __future__ import annotations

from typing import Any

from authgate.audit_trail.consumer import consume
from authgate.ssf.signals import from_trail


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    events = consume(event.get("Records") or [], signals=from_trail)
    return {"events": len(events)}
