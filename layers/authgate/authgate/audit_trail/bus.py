"""Every kept event, published on the stage's EventBridge bus for a SIEM or a function to subscribe to.

Each event is one entry: source `authgate`, detail-type its action (`token.issued`), detail the
event itself, time its time (docs/audit.md, "Events out"). PutEvents takes ten entries a call; an
entry the bus refuses (throttled, an internal failure) is tried again twice, after 0.1 s and 0.4 s.
What is still refused then goes, whole, to the unpublished queue (AuditUnpublishedQueue, kept
14 days for a redrive) and is counted (AuditPublishFailed, alarmed). Only a failure to queue it
fails the batch, which the stream then delivers again: an event may reach the bus twice, never
not at all (receivers deduplicate by `id`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from authgate.http.metrics import record_count
from authgate.logs import get_logger

SOURCE = "authgate"
ENTRIES_PER_CALL = 10
RETRY_DELAYS = (0.1, 0.4)
PUBLISH_FAILED = "AuditPublishFailed"


def _entry(bus: str, event: dict[str, Any]) -> dict[str, Any]:
    return {"Source": SOURCE, "DetailType": str(event.get("action", "")), "EventBusName": bus,
            "Detail": json.dumps(event, separators=(",", ":"), ensure_ascii=False)}


def _put(events_client: Any, entries: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str]]:
    """PutEvents of up to ten entries; the refused ones with their error code."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        answer = events_client.put_events(Entries=entries)
    except (BotoCoreError, ClientError) as exc:
        code = exc.response.get("Error", {}).get("Code", "") if isinstance(exc, ClientError) else type(exc).__name__
        return [(entry, str(code)) for entry in entries]
    return [(entry, str(result.get("ErrorCode") or "failed"))
            for entry, result in zip(entries, answer.get("Entries") or [], strict=False) if result.get("ErrorCode")]


def publish(events: Sequence[dict[str, Any]], bus: str, unpublished_queue: str, *, events_client: Any = None,
            sqs: Any = None, sleep: Any = time.sleep) -> int:
    """Publish `events` on `bus`; queue what it keeps refusing; how many were queued."""
    if not events or not bus:
        return 0
    from authgate import aws

    events_client = events_client or aws.events()
    refused: list[tuple[dict[str, Any], str]] = []
    entries = [_entry(bus, event) for event in events]
    for start in range(0, len(entries), ENTRIES_PER_CALL):
        pending = entries[start:start + ENTRIES_PER_CALL]
        failed = _put(events_client, pending)
        for delay in RETRY_DELAYS:
            if not failed:
                break
            sleep(delay)
            failed = _put(events_client, [entry for entry, _ in failed])
        refused += failed
    if refused:
        _queue(refused, unpublished_queue, sqs or aws.sqs())
        get_logger().warning("audit events not published", extra={"unpublished": len(refused),
                                                                  "error_codes": sorted({c for _, c in refused})})
        record_count(PUBLISH_FAILED, len(refused))
    return len(refused)


def _queue(refused: list[tuple[dict[str, Any], str]], queue_url: str, sqs: Any) -> None:
    """Each refused entry, as it was, on the unpublished queue; raises when the queue refuses one."""
    for start in range(0, len(refused), 10):
        chunk = refused[start:start + 10]
        answer = sqs.send_message_batch(QueueUrl=queue_url, Entries=[
            {"Id": str(i), "MessageBody": json.dumps({"entry": entry, "error": code}, separators=(",", ":"))}
            for i, (entry, code) in enumerate(chunk)])
        if answer.get("Failed"):
            raise RuntimeError(f"the unpublished queue refused {len(answer['Failed'])} audit events")
