"""deliveries.queue: messages wait in the deliveries queue, sent ten to a SendMessageBatch; without a queue, none."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from authgate import caches
from authgate.deliveries.queue import BATCH, MAX_ATTEMPTS, send


def received() -> list[dict[str, Any]]:
    """Every message on the deliveries queue (moto's SQS), bodies parsed, in the order they were sent."""
    from authgate import aws
    from authgate.settings import get_settings

    bodies: list[str] = []
    while True:
        answer = aws.sqs().receive_message(QueueUrl=get_settings().deliveries_queue, MaxNumberOfMessages=10)
        messages = answer.get("Messages") or []
        if not messages:
            return [json.loads(b) for b in bodies]
        bodies += [m["Body"] for m in messages]


def test_every_message_is_queued_ten_to_a_batch(aws: None) -> None:
    messages = [{"kind": "mail", "mail": None, "n": i} for i in range(2 * BATCH + 3)]
    assert send(messages) == 23
    assert sorted(m["n"] for m in received()) == list(range(23))
    assert (BATCH, MAX_ATTEMPTS) == (10, 5)


def test_a_message_body_is_compact_json_with_sorted_members(aws: None) -> None:
    from authgate import aws as clients
    from authgate.settings import get_settings

    assert send([{"kind": "mail", "b": 1, "a": "é"}]) == 1
    (message,) = clients.sqs().receive_message(QueueUrl=get_settings().deliveries_queue)["Messages"]
    assert message["Body"] == '{"a":"\\u00e9","b":1,"kind":"mail"}'


def test_nothing_to_queue_makes_no_call() -> None:
    """No AWS here at all: a call would fail for want of credentials and endpoint."""
    assert send([]) == 0


def test_a_stage_without_a_queue_drops_what_it_would_queue_and_says_so(
        monkeypatch: pytest.MonkeyPatch, log_lines: Callable[[], list[dict[str, Any]]]) -> None:
    monkeypatch.delenv("AUTHGATE_DELIVERIES_QUEUE", raising=False)
    caches.reset()
    assert send([{"kind": "mail", "mail": None}] * 3) == 0
    (line,) = log_lines()
    assert (line["message"], line["count"]) == ("deliveries dropped: no queue configured", 3)
    caches.reset()
