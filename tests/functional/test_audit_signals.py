"""The audit function hands each kept batch to the Shared Signals transmitter (functions/audit/app.py,
authgate.ssf.signals.from_trail): a receiver's SETs are queued; when they cannot be, the events wait on
the deliveries queue for the deliver function to try again (authgate.deliveries.pending_signals) and
the trail goes on; only when they can be neither queued nor parked is the batch failed, and the
stream's next delivery keeps nothing twice and sends the signals."""

from __future__ import annotations

import json
from typing import Any

import pytest

from authgate import audit
from authgate.audit_trail.consumer import current_trail
from authgate.audit_trail.reader import events, verify_trail
from authgate_cli.local import template
from authgate_cli.local.functions import load_handler
from tests import aws_state
from tests.audit_support import AuditStage
from tests.demo import ISSUER
from tests.functional.ssf_support import (
    ALICE,
    POLL,
    SESSION_REVOKED,
    answer,
    deliver_queued,
    queued,
    ssf_call,
    verified_set,
)
from tests.log_hygiene import LogCapture


def sign_out_line() -> tuple[str, str]:
    """alice's session.ended line as the authorize function prints it, and the event's id."""
    with LogCapture() as capture:
        audit.record("session.ended", "demo", actor=audit.user(ALICE, username="alice"),
                     target=audit.user(ALICE, username="alice"), details={"client_id": "demo-web"})
    (line,) = capture.lines
    return line, json.loads(line)["event"]["id"]


def poll_stream(invoke: Any) -> str:
    status, _, body = answer(ssf_call(invoke, "POST", "/ssf/streams", {
        "delivery": {"method": POLL}, "events_requested": [SESSION_REVOKED]}))
    assert status == 201
    return str(body["stream_id"])


def polled(invoke: Any) -> list[dict[str, Any]]:
    """The claims of every SET waiting for demo-service's poll, verified with PyJWT."""
    deliver_queued()
    sets = answer(ssf_call(invoke, "POST", "/ssf/poll", {"returnImmediately": True}))[2]["sets"]
    return [verified_set(token, "demo-service")[1] for token in sets.values()]


def session_revoked(event_id: str) -> dict[str, Any]:
    return {"iss": ISSUER, "aud": "demo-service", "txn": event_id,
            "sub_id": {"format": "iss_sub", "iss": ISSUER, "sub": ALICE},
            "events": {SESSION_REVOKED: {"initiating_entity": "user",
                                         "reason_admin": {"en": "The user signed out."}}}}


def without_moment(claims: dict[str, Any]) -> dict[str, Any]:
    """A SET's claims but its jti and iat, and its event's event_timestamp (the recording's own time)."""
    out = {k: v for k, v in claims.items() if k not in ("jti", "iat")}
    out["events"] = {t: {k: v for k, v in c.items() if k != "event_timestamp"} for t, c in out["events"].items()}
    return out


def drop_streams_table() -> None:
    aws_state.client("dynamodb").delete_table(TableName="StreamsTable")


def restore_streams_table() -> None:
    aws_state.client("dynamodb").create_table(**template.table_definitions()["StreamsTable"]["create"])


def test_a_kept_sign_out_reaches_the_receivers_stream(demo: Any, audit_stage: AuditStage, invoke: Any) -> None:
    poll_stream(invoke)
    line, event_id = sign_out_line()
    assert load_handler("audit")({"Records": audit_stage.records([line])}, None) == {"events": 1}
    assert [without_moment(c) for c in polled(invoke)] == [session_revoked(event_id)]


def test_signals_not_queued_wait_for_the_deliver_function_and_the_trail_goes_on(
        demo: Any, audit_stage: AuditStage, invoke: Any, capsys: pytest.CaptureFixture[str]) -> None:
    line, event_id = sign_out_line()
    drop_streams_table()  # the transmitter cannot read the receivers' streams
    assert load_handler("audit")({"Records": audit_stage.records([line])}, None) == {"events": 1}
    assert [e["id"] for e in events(current_trail())] == [event_id]  # kept
    (parked,) = queued()
    assert parked == {"kind": "audit_signals", "events": [json.loads(line)["event"]]}
    emf = [json.loads(out) for out in capsys.readouterr().out.splitlines() if '"_aws"' in out]
    assert [m["AuditSignalsFailed"] for m in emf if "AuditSignalsFailed" in m] == [[1.0]]
    # Still failing: the deliver function names it for SQS to try again (then the dead-letter queue).
    deliver = load_handler("deliver")
    record = {"messageId": "m1", "attributes": {"ApproximateReceiveCount": "2"}, "body": json.dumps(parked)}
    assert deliver({"Records": [record]}, None) == {"batchItemFailures": [{"itemIdentifier": "m1"}]}
    restore_streams_table()
    poll_stream(invoke)
    assert deliver({"Records": [record]}, None) == {"batchItemFailures": []}
    assert [without_moment(c) for c in polled(invoke)] == [session_revoked(event_id)]


def test_signals_neither_queued_nor_parked_fail_the_batch_which_is_then_kept_once(
        demo: Any, audit_stage: AuditStage, invoke: Any) -> None:
    from authgate.ssf.signals import SignalsNotQueued

    poll_stream(invoke)
    line, event_id = sign_out_line()
    records = audit_stage.records([line])
    sqs = aws_state.client("sqs")
    queue_url = sqs.get_queue_url(QueueName="DeliveriesQueue")["QueueUrl"]
    sqs.delete_queue(QueueUrl=queue_url)
    with pytest.raises(SignalsNotQueued, match="neither queued nor parked"):
        load_handler("audit")({"Records": records}, None)
    assert [e["id"] for e in events(current_trail())] == [event_id]  # kept before the signals failed
    template.create_queues(sqs)
    assert load_handler("audit")({"Records": records}, None) == {"events": 1}  # the stream's next delivery
    result = verify_trail(current_trail())
    assert (result.objects, result.events, result.findings) == (1, 1, [])
    assert [without_moment(c) for c in polled(invoke)] == [session_revoked(event_id)]
