"""The audit stream's records, as the audit function's Kinesis event source hands them over.

A record's data is one of two things:
- a CloudWatch Logs subscription batch (gzip of {"messageType": "DATA_MESSAGE", "logEvents": [...]}):
  the functions' log lines the subscription filter matched, each an audit line (authgate.audit.record);
  CloudWatch's CONTROL_MESSAGE, which checks the destination is reachable, holds none;
- an admin command's own audit line (`authgate users disable ...` on a stage puts it on the stream).
A line that is not an audit event (a filter that matched too much, a line cut short) is counted,
never kept and never fatal.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import zlib
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from authgate.audit.record import event_of


class Batch(NamedTuple):
    """What a stream's records hold: every event; those of records after the kept position (not stored
    yet); where the last record ends on the stream; how many lines were refused."""

    events: list[dict[str, Any]]
    fresh: list[dict[str, Any]]
    position: dict[str, Any] | None
    refused: int


def _lines(data: bytes) -> tuple[list[str], int]:
    """A record's audit lines (and how many were unreadable)."""
    if data[:2] == b"\x1f\x8b":
        try:
            document = json.loads(gzip.decompress(data))
        except (OSError, EOFError, zlib.error, ValueError):
            return [], 1
        if not isinstance(document, Mapping) or document.get("messageType") != "DATA_MESSAGE":
            return [], 0
        return [str(e.get("message", "")) for e in document.get("logEvents") or [] if isinstance(e, Mapping)], 0
    return [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()], 0


def shard_of(record: Mapping[str, Any]) -> str:
    """The shard a record came from: its eventID is "shardId-000000000000:<sequence number>"."""
    return str(record.get("eventID", "")).partition(":")[0]


def after(position: Mapping[str, Any] | None, record: Mapping[str, Any]) -> bool:
    """Whether `record` comes after `position` (a shard and sequence number): not kept already."""
    if not position or position.get("shard") != shard_of(record):
        return True
    try:
        return int(record["kinesis"]["sequenceNumber"]) > int(position["sequence"])
    except (KeyError, TypeError, ValueError):
        return True


def decode(records: Sequence[Mapping[str, Any]], kept: Mapping[str, Any] | None = None) -> Batch:
    """The events of `records`, those that come after `kept` (the stream position the chain's head ends
    at: a batch retried after it was stored is not stored twice) and where the last record ends."""
    events: list[dict[str, Any]] = []
    fresh: list[dict[str, Any]] = []
    refused = 0
    position = None
    for record in records:
        kinesis = record.get("kinesis") or {}
        try:
            data = base64.b64decode(kinesis.get("data") or "", validate=True)
        except (binascii.Error, ValueError):
            refused += 1
            continue
        lines, unreadable = _lines(data)
        refused += unreadable
        found = []
        for line in lines:
            event = event_of(line)
            if event is None:
                refused += 1
            else:
                found.append(event)
        events += found
        if after(kept, record):
            fresh += found
        position = {"shard": shard_of(record), "sequence": str(kinesis.get("sequenceNumber", ""))}
    return Batch(events, fresh, position, refused)
