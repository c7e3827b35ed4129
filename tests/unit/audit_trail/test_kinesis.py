"""authgate.audit_trail.kinesis: what the audit stream's records hold."""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any

from authgate.audit_trail.kinesis import decode

EVENT = {"id": "01J0000000000000000000000A", "time": "2026-01-31T12:00:00.000Z", "tenant": "demo",
         "actor": {"type": "client", "id": "web"}, "action": "token.issued", "target": {"type": "client", "id": "web"},
         "outcome": "success", "source_ip": "", "user_agent": "", "request_id": "", "details": {}}
LINE = json.dumps({"level": "INFO", "message": "audit", "authgate_audit": 1, "event": EVENT})


def record(data: bytes, sequence: int, shard: str = "shardId-000000000000") -> dict[str, Any]:
    return {"eventID": f"{shard}:{sequence}", "kinesis": {"data": base64.b64encode(data).decode(),
                                                          "sequenceNumber": str(sequence)}}


def subscription(*messages: str, kind: str = "DATA_MESSAGE") -> bytes:
    return gzip.compress(json.dumps({"messageType": kind, "logGroup": "/aws/lambda/token", "logEvents": [
        {"id": str(i), "timestamp": 0, "message": m} for i, m in enumerate(messages)]}).encode())


def test_a_subscription_batch_and_a_command_line_are_read() -> None:
    other = {**EVENT, "id": "01J0000000000000000000000B"}
    batch = decode([record(subscription(LINE, LINE.replace(EVENT["id"], other["id"])), 10),
                    record(LINE.encode() + b"\n", 11)])
    assert batch.events == [EVENT, other, EVENT]
    assert batch.fresh == batch.events
    assert batch.position == {"shard": "shardId-000000000000", "sequence": "11"}
    assert batch.refused == 0


def test_a_control_message_holds_nothing_and_other_lines_are_refused() -> None:
    batch = decode([record(subscription(kind="CONTROL_MESSAGE"), 1),
                    record(subscription('{"message": "request"}', "plain text"), 2),
                    record(b"\x1f\x8bnot gzip", 3), {"eventID": "s:4", "kinesis": {"data": "%%%"}}])
    assert (batch.events, batch.refused) == ([], 4)


def test_records_already_kept_are_not_fresh_but_still_read() -> None:
    kept = {"shard": "shardId-000000000000", "sequence": "11"}
    batch = decode([record(LINE.encode(), 11), record(LINE.encode(), 12), record(LINE.encode(), 5, "shardId-1")],
                   kept)
    assert len(batch.events) == 3
    assert len(batch.fresh) == 2  # sequence 12, and the other shard's
