"""RFC 8935 push delivery of Shared Signals SETs: a real HTTPS receiver on 127.0.0.1 (the test CA), the deliver
function's retries and give-ups, the Authorization header a receiver set (SSF 1.0 6.1.1)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.demo import ISSUER
from tests.document_server import DocumentServer, Route, document_server, trust_documents
from tests.functional.ssf_support import (
    PUSH,
    SESSION_REVOKED,
    VERIFICATION,
    answer,
    deliver_queued,
    queued,
    ssf_call,
    verified_set,
)


@pytest.fixture(scope="module")
def receiver_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    with document_server(tmp_path_factory.mktemp("tls")) as srv:
        yield srv


@pytest.fixture
def receiver(receiver_server: DocumentServer, monkeypatch: pytest.MonkeyPatch) -> DocumentServer:
    receiver_server.posts.clear()
    receiver_server.post_headers.clear()
    receiver_server.post_answers.clear()
    return trust_documents(receiver_server, monkeypatch)


def push_stream(invoke: Any, url: str, header: str = "Bearer receiver-secret") -> str:
    delivery = {"method": PUSH, "endpoint_url": url, "authorization_header": header}
    status, _, body = answer(ssf_call(invoke, "POST", "/ssf/streams", {"delivery": delivery,
                                                                        "events_requested": [SESSION_REVOKED]}))
    assert status == 201
    return str(body["stream_id"])


def test_a_verification_event_is_pushed_as_secevent_jwt(demo: Any, invoke: Any, receiver: DocumentServer) -> None:
    """RFC 8935 2.1: POST application/secevent+jwt with the receiver's Authorization header; 202 is delivered."""
    receiver.post_answers["/events"] = [Route(b"", 202, {})]
    stream_id = push_stream(invoke, receiver.url("/events"))
    assert ssf_call(invoke, "POST", "/ssf/verify", {"stream_id": stream_id, "state": "s1"})["statusCode"] == 204
    assert deliver_queued() == 1
    ((path, content_type, body),) = receiver.posts
    (headers,) = receiver.post_headers
    assert (path, content_type, headers["Authorization"], headers["Accept"]) == (
        "/events", "application/secevent+jwt", "Bearer receiver-secret", "application/json")
    header, claims = verified_set(body.decode("ascii"), "demo-service")
    assert header["typ"] == "secevent+jwt"
    assert (claims["iss"], claims["sub_id"], claims["events"]) == (
        ISSUER, {"format": "opaque", "id": stream_id}, {VERIFICATION: {"state": "s1"}})
    assert queued() == []


def record(message: dict[str, Any], attempt: int, message_id: str) -> dict[str, Any]:
    return {"messageId": message_id, "attributes": {"ApproximateReceiveCount": str(attempt)},
            "body": json.dumps(message)}


def test_a_receiver_that_is_down_is_retried_and_one_that_refuses_is_given_up(demo: Any, invoke: Any,
                                                                            receiver: DocumentServer) -> None:
    """A 5xx or no answer is tried again by SQS until the last attempt; RFC 8935 2.3's 400 is final."""
    from authgate.deliveries.deliver import MAX_ATTEMPTS, deliver_batch
    from authgate.ssf.signals import on_events

    receiver.post_answers["/events"] = [Route(b"", 503, {})]
    push_stream(invoke, receiver.url("/events"))
    event = {"id": "e1", "time": "2025-06-15T10:00:00Z", "tenant": "demo", "actor": {"type": "admin", "id": "op"},
             "action": "user.sessions_revoked", "target": {"type": "user", "id": "usr_demoalice0000000000000"},
             "outcome": "success", "details": {}}
    assert on_events([event]) == 1
    (message,) = queued()
    assert deliver_batch([record(message, 1, "early"), record(message, MAX_ATTEMPTS, "last")]) == ["early"]
    receiver.post_answers["/events"] = [Route(b'{"err":"invalid_audience","description":"not ours"}', 400)]
    assert deliver_batch([record(message, 1, "refused")]) == []
    assert len(receiver.posts) == 3


def test_a_deleted_stream_drops_what_was_queued_for_it(demo: Any, invoke: Any, receiver: DocumentServer) -> None:
    from authgate.deliveries.deliver import deliver_batch
    from authgate.ssf.signals import on_events

    stream_id = push_stream(invoke, receiver.url("/events"))
    on_events([{"id": "e2", "tenant": "demo", "action": "session.ended", "outcome": "success",
                "target": {"type": "user", "id": "usr_demoalice0000000000000"}}])
    (message,) = queued()
    ssf_call(invoke, "DELETE", "/ssf/streams", query=f"stream_id={stream_id}")
    assert deliver_batch([record(message, 1, "m")]) == []
    assert receiver.posts == []
