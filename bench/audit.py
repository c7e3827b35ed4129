"""What recording an audit event costs a request, and what keeping a batch costs the audit function.

- one `authgate.audit.record` of a `token.issued` event as the token endpoint records it: CPU per
  event (best of 15 rounds of 500, the line written to /dev/null) and the AWS calls it makes
  (every client of authgate.aws watched with botocore's before-call hooks): the issue's goal is
  none (docs/audit.md, "What it costs");
- the audit function's own work for a batch of 1 000 stream records: decoding and sealing them
  into the next object of a chain (a directory, so no AWS time is counted).
The token endpoint's and the charges API's DynamoDB calls and warm CPU, with their events
recorded, are the per-operation figures of the report. Run: `python -m bench audit`.
"""

from __future__ import annotations

import base64
import os
import tempfile
import time
from collections import Counter
from typing import Any

ROUNDS, PER_ROUND, BATCH = 15, 500, 1000
SERVICES = ("dynamodb", "secretsmanager", "kms", "sesv2", "sqs", "s3", "events")
TARGET_US = 30


def _event() -> Any:
    from authgate import audit

    return lambda: audit.record(
        "token.issued", "demo", actor=audit.client("demo-service"), target=audit.client("demo-service"),
        details={"grant_type": "client_credentials", "client_id": "demo-service",
                 "scopes": ["charges:read", "charges:write"], "resource": "https://auth.example.com/charges",
                 "token_type": "Bearer", "jti": os.urandom(18).hex(), "refreshable": False, "openid": False})


def measure() -> dict[str, Any]:
    from authgate import audit, aws
    from authgate.logs import _HANDLER, get_logger

    get_logger()
    audit.bind("203.0.113.9", "python-requests/2.32", "c6af9ac6-7b61-11e6-9a41-93e8deadbeef")
    record = _event()
    calls: Counter[str] = Counter()

    def count(model: Any, **_: Any) -> None:
        calls[model.name] += 1

    clients = [getattr(aws, service)() for service in SERVICES]
    for client in clients:
        client.meta.events.register("before-call", count)
    sink = open(os.devnull, "w")  # noqa: SIM115 - restored below
    previous = _HANDLER[0].setStream(sink)
    try:
        for _ in range(1000):
            record()
        best = float("inf")
        for _ in range(ROUNDS):
            started = time.process_time()
            for _ in range(PER_ROUND):
                record()
            best = min(best, (time.process_time() - started) / PER_ROUND * 1e6)
    finally:
        _HANDLER[0].setStream(previous)
        sink.close()
        for client in clients:
            client.meta.events.unregister("before-call", count)
    return {"event_cpu_us": round(best, 1), "event_aws_calls": sum(calls.values()),
            "batch_of_1000_cpu_ms": _batch(), "target_event_cpu_us": TARGET_US}


def _batch() -> float:
    """CPU (ms) to decode 1 000 records of one audit line each and seal them as one object."""
    from authgate import audit
    from authgate.audit.event import build
    from authgate.audit.record import line_of, redacted
    from authgate.audit_trail.directory import DirectoryStore
    from authgate.audit_trail.kinesis import decode
    from authgate.audit_trail.trail import Trail

    lines = [line_of(redacted(build("token.issued", "demo", actor=audit.client("demo-service"),
                                    target=audit.client("demo-service"), details={"jti": os.urandom(18).hex()})))
             for _ in range(BATCH)]
    records = [{"eventID": f"shardId-0:{n}", "kinesis": {"data": base64.b64encode(line.encode()).decode(),
                                                        "sequenceNumber": str(n)}} for n, line in enumerate(lines)]
    best = float("inf")
    for _ in range(5):
        with tempfile.TemporaryDirectory() as folder:
            store = DirectoryStore(folder)
            trail = Trail(store, store.mac())
            started = time.process_time()
            batch = decode(records)
            trail.append(batch.fresh, batch.position)
            best = min(best, (time.process_time() - started) * 1000)
    return round(best, 1)


def on_a_stage(event: dict[str, Any]) -> dict[str, Any]:
    """The cold audit function's scenario as on a stage (bench.cold): the template's audit resources in this
    process's moto, a chain of one object already kept (by `event`), and the next batch to keep: a cold
    container finds the chain's head, then seals, puts and publishes the batch."""
    import copy

    from authgate import caches
    from authgate_cli.local.functions import load_handler
    from tests.audit_support import create_audit_stage

    os.environ.update(create_audit_stage().environment())
    caches.reset()
    load_handler("audit")(event, None)
    following = copy.deepcopy(event)
    for record in following["Records"]:
        number = str(int(record["kinesis"]["sequenceNumber"]) + 1)
        record["kinesis"]["sequenceNumber"] = number
        record["eventID"] = f"{record['eventID'].partition(':')[0]}:{number}"
    return following


def lines(figures: dict[str, Any]) -> list[str]:
    """The report's line (docs/performance.md)."""
    return [(f"Audit trail (docs/audit.md): recording one `token.issued` event {figures['event_cpu_us']} us of CPU "
             f"and {figures['event_aws_calls']} AWS calls (a log line; best of {ROUNDS} rounds of {PER_ROUND}); the "
             f"audit function decodes and seals a batch of {BATCH} stream records in "
             f"{figures['batch_of_1000_cpu_ms']} ms of CPU")]


def main() -> int:
    for line in lines(measure()):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
