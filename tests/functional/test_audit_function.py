"""The audit function (functions/audit/app.py) on its stream's records, against a stage's audit trail in
moto: sealed, chained objects in the Object Lock bucket, every event on the bus, nothing stored twice,
and every missing, edited or rewritten object found by the verification `authgate events verify` runs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from authgate import audit
from authgate.audit_trail.chain import open_object
from authgate.audit_trail.consumer import current_trail
from authgate.audit_trail.reader import events, verify_trail
from authgate_cli.local.functions import load_handler
from tests import aws_state
from tests.audit_support import AuditStage
from tests.log_hygiene import LogCapture


def lines(count: int, action: Any = "token.issued") -> list[str]:
    """`count` audit lines as the functions print them."""
    with LogCapture() as capture:
        for n in range(count):
            audit.record(action, "demo", actor=audit.client("demo-service"), target=audit.client("demo-service"),
                         details={"grant_type": "client_credentials", "n": n})
    return capture.lines


def kept_objects(stage: AuditStage) -> list[dict[str, Any]]:
    s3 = aws_state.client("s3")
    listed = s3.list_objects_v2(Bucket=stage.bucket).get("Contents") or []
    return [s3.head_object(Bucket=stage.bucket, Key=item["Key"]) | {"Key": item["Key"]} for item in listed]


def test_a_batch_becomes_a_sealed_locked_object_and_reaches_the_bus(audit_stage: AuditStage) -> None:
    batch = lines(3)
    result = load_handler("audit")({"Records": audit_stage.records(batch[:2], batch[2:])}, None)
    assert result == {"events": 3}
    (kept,) = kept_objects(audit_stage)
    assert kept["Key"].startswith("events/date=") and kept["Key"].endswith("/999999999999.jsonl")
    assert kept["ObjectLockMode"] == "COMPLIANCE"
    body = aws_state.client("s3").get_object(Bucket=audit_stage.bucket, Key=kept["Key"])["Body"].read()
    header, stored = open_object(body)
    assert [e["details"]["n"] for e in stored] == [0, 1, 2]
    assert (header["sequence"], header["previous"], header["key"]) == (1, "", audit_stage.mac_key)
    assert header["source"] == {"shard": "shardId-000000000000", "sequence": f"{2:056d}"}
    assert verify_trail(current_trail()).findings == []
    published = audit_stage.published()
    assert [(p["source"], p["detail-type"], p["detail"]) for p in published] == [
        ("authgate", "token.issued", event) for event in stored]


def test_a_retried_batch_is_not_kept_twice_and_the_next_one_follows(audit_stage: AuditStage) -> None:
    handler = load_handler("audit")
    first = audit_stage.records(lines(2))
    handler({"Records": first}, None)
    handler({"Records": first}, None)  # the event source delivers it again (a timeout after the write)
    handler({"Records": audit_stage.records(lines(1))}, None)
    assert len(kept_objects(audit_stage)) == 2
    assert len(events(current_trail())) == 3
    result = verify_trail(current_trail())
    assert (result.objects, result.first, result.last, result.findings) == (2, 1, 2, [])
    # A cold function finds the head in the bucket and goes on from it.
    from authgate import caches

    caches.reset()
    handler({"Records": audit_stage.records(lines(1))}, None)
    assert verify_trail(current_trail()).last == 3


def test_what_is_not_an_audit_line_is_counted_and_left_out(audit_stage: AuditStage) -> None:
    with LogCapture() as capture:
        result = load_handler("audit")({"Records": audit_stage.records(['{"message": "request"}', *lines(1)])}, None)
    assert result == {"events": 1}
    metrics = [json.loads(line) for line in capture.lines if "_aws" in line]
    assert metrics == []  # EMF goes to stdout, not the logger: see the warning instead
    warnings = [json.loads(line) for line in capture.lines if '"refused"' in line]
    assert [(w["message"], w["refused"]) for w in warnings] == [("audit stream lines that are not audit events", 1)]


def test_an_admin_commands_own_line_is_kept_like_the_functions(audit_stage: AuditStage) -> None:
    load_handler("audit")({"Records": audit_stage.records(lines(1, "user.disabled"), raw=True)}, None)
    assert [e["action"] for e in events(current_trail())] == ["user.disabled"]


@pytest.mark.slow
def test_a_bus_that_refuses_sends_the_events_to_the_unpublished_queue(audit_stage: AuditStage,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    aws_state.client("events").delete_event_bus(Name=audit_stage.bus)
    load_handler("audit")({"Records": audit_stage.records(lines(2))}, None)
    assert len(events(current_trail())) == 2  # kept all the same
    sqs = aws_state.client("sqs")
    queued = sqs.receive_message(QueueUrl=audit_stage.unpublished_queue, MaxNumberOfMessages=10)["Messages"]
    entries = [json.loads(m["Body"]) for m in queued]
    assert [json.loads(e["entry"]["Detail"])["details"]["n"] for e in entries] == [0, 1]
    assert {e["entry"]["Source"] for e in entries} == {"authgate"}
    emf = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"_aws"' in line]
    assert [(m["AuditPublishFailed"], m["service"]) for m in emf if "AuditPublishFailed" in m] == [([2.0], "authgate")]


def test_a_bucket_that_refuses_fails_the_batch_for_the_stream_to_deliver_again(audit_stage: AuditStage) -> None:
    from botocore.exceptions import ClientError

    records = audit_stage.records(lines(1))
    s3 = aws_state.client("s3")
    s3.put_bucket_policy(Bucket=audit_stage.bucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Deny", "Principal": "*", "Action": "s3:PutObject", "Resource": f"arn:aws:s3:::{audit_stage.bucket}/*"}]}))
    with pytest.raises(ClientError, match="Forbidden"):
        load_handler("audit")({"Records": records}, None)
    assert audit_stage.published() == []  # nothing published before it is kept
    s3.delete_bucket_policy(Bucket=audit_stage.bucket)
    assert load_handler("audit")({"Records": records}, None) == {"events": 1}  # the stream's next delivery
    assert verify_trail(current_trail()).objects == 1


def test_a_rewritten_or_edited_object_is_found(audit_stage: AuditStage) -> None:
    handler = load_handler("audit")
    for _ in range(3):
        handler({"Records": audit_stage.records(lines(1))}, None)
    s3 = aws_state.client("s3")
    names = sorted(item["Key"] for item in s3.list_objects_v2(Bucket=audit_stage.bucket)["Contents"])
    middle = names[1]  # sequence 2 (names count down)
    body = s3.get_object(Bucket=audit_stage.bucket, Key=middle)["Body"].read()
    s3.put_object(Bucket=audit_stage.bucket, Key=middle, Body=body.replace(b"demo-service", b"evil-service"),
                  ChecksumAlgorithm="SHA256")
    assert [f.line() for f in verify_trail(current_trail()).findings] == [
        f"rewritten: {middle}: the bucket holds 2 versions of it",
        f"edited: {middle}: its events are not the events it sealed",
    ]
