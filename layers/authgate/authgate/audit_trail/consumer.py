"""One batch of the audit stream, end to end: keep, publish, signal (the audit function's handler, and
the local stack's consumer of its handlers' audit lines).

1. Keep: the events of records not kept yet become the chain's next object (authgate.audit_trail.trail).
   A failure raises: the stream delivers the batch again, in order, until it is kept (or the record
   is older than the stream keeps it, when the event source sends its position to the dead-letter
   queue: docs/audit.md, "When something fails").
2. Publish: every event of the batch on the stage's bus (authgate.audit_trail.bus; none locally).
3. Signal: every event of the batch to the Shared Signals hook (authgate.ssf.signals.from_trail), which
   queues their SETs or, when that fails, parks them for a retry of their own (AuditSignalsFailed,
   alarmed), so a receiver never holds up the trail. It raises only when it could do neither; then
   the stream delivers the batch again, whose events step 1 finds kept already: a batch delivered
   twice is kept once, and its signals are not lost.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from authgate.audit_trail.bucket import BucketStore
from authgate.audit_trail.bus import PUBLISH_FAILED, publish
from authgate.audit_trail.directory import DirectoryStore
from authgate.audit_trail.kinesis import decode
from authgate.audit_trail.mac import KmsMac
from authgate.audit_trail.trail import Trail
from authgate.caches import cached
from authgate.http.metrics import record_count
from authgate.logs import get_logger
from authgate.settings import get_settings

Signals = Callable[[list[dict[str, Any]]], None]
# What the trail counts (EMF, namespace authgate; template.yaml alarms on the first).
METRICS = {"unpublished": PUBLISH_FAILED, "refused": "AuditLinesRefused"}


class NoTrail(RuntimeError):
    """Neither a bucket nor a directory is configured for the audit trail."""


@cached
def current_trail() -> Trail:
    """The stage's chain (AUTHGATE_AUDIT_BUCKET, sealed with AUTHGATE_AUDIT_MAC_KEY), else the local
    stack's (AUTHGATE_AUDIT_DIR); kept for the warm process (its head with it)."""
    trail = get_settings().audit_trail
    if trail.bucket:
        return Trail(BucketStore(trail.bucket), KmsMac(trail.mac_key))
    if trail.directory:
        store = DirectoryStore(trail.directory)
        return Trail(store, store.mac())
    raise NoTrail("no audit trail is configured (AUTHGATE_AUDIT_BUCKET or AUTHGATE_AUDIT_DIR)")


def consume(records: Sequence[Mapping[str, Any]], signals: Signals | None = None) -> list[dict[str, Any]]:
    """Keep, publish and signal the events of `records`; every event of the batch."""
    trail = current_trail()
    batch = decode(records, trail.position())
    if batch.refused:
        get_logger().warning("audit stream lines that are not audit events", extra={"refused": batch.refused})
        record_count(METRICS["refused"], batch.refused)
    if batch.fresh:
        trail.append(batch.fresh, batch.position)
    settings = get_settings().audit_trail
    publish(batch.events, settings.bus, settings.unpublished_queue)
    if signals is not None and batch.events:
        signals(batch.events)
    return batch.events
