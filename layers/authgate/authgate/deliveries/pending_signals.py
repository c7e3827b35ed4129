"""Audit events whose Shared Signals were not queued when the trail kept them, waiting to be tried again.

When the transmitter fails on a batch of the audit trail (StreamsTable unavailable, SETs the queue
did not take: authgate.ssf.signals.from_trail), the events of the batch that call for signals are
parked on the deliveries queue (`messages`: one message per ~200 KB of events, under SQS's 256 KiB),
so the trail goes on with the next batch. The deliver function hands a parked message's events
back to the transmitter (`deliver`, the transmitter given as `signals`); when it fails again, SQS
tries again after the queue's visibility timeout, and past maxReceiveCount the message waits in the
dead-letter queue: a signal is never dropped here. Each failure counts AuditSignalsFailed (alarmed).
What was queued before a failure is queued again: a receiver gets a SET of a new `jti` with the
same `txn`, the audit event's id (SSF 1.0 4.1.9), and so knows it is the same cause.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from authgate.http.metrics import record_count
from authgate.logs import get_logger

KIND = "audit_signals"
# How much of a message the events may take (SQS's limit is 256 KiB).
MAX_BYTES = 200_000
FAILED = "AuditSignalsFailed"

Signals = Callable[[list[dict[str, Any]]], object]


def messages(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The parked messages of `events`, in their order."""
    chunks: list[list[dict[str, Any]]] = []
    size = MAX_BYTES
    for event in events:
        length = len(json.dumps(event, separators=(",", ":")))
        if size + length > MAX_BYTES and (not chunks or chunks[-1]):
            chunks.append([])
            size = 0
        chunks[-1].append(event)
        size += length
    return [{"kind": KIND, "events": chunk} for chunk in chunks if chunk]


def is_message(message: dict[str, Any]) -> bool:
    events = message.get("events")
    return message.get("kind") == KIND and isinstance(events, list) and all(isinstance(e, dict) for e in events)


def deliver(message: dict[str, Any], attempt: int, signals: Signals) -> str:
    """Hand the parked events to the transmitter: "delivered", or "retried" (SQS tries again, then the DLQ)."""
    events = message["events"]
    try:
        signals(events)
    except Exception as exc:  # noqa: BLE001 - whatever failed, the events wait for the next attempt
        record_count(FAILED, len(events))
        get_logger().warning("parked Shared Signals failed again", extra={
            "events": len(events), "attempt": attempt, "detail": f"{type(exc).__name__}: {exc}"})
        return "retried"
    get_logger().info("parked Shared Signals queued", extra={"events": len(events), "attempt": attempt})
    return "delivered"
