"""The local stack's stand-in for the SQS event source of the deliver function: a background thread.

It does what Lambda's event source mapping does in AWS: receive up to ten messages from
DeliveriesQueue (moto's, with the template's redrive policy), run the deliver function's own
handler on them (functions/deliver/app.py, attributed like any handler), delete those it did not
name as failed, and leave the failed ones to come back after the visibility timeout -- shortened
here to RETRY_SECONDS so a retry is seen in seconds, not minutes. Past maxReceiveCount moto moves
a message to the dead-letter queue, as SQS does.
"""

from __future__ import annotations

import threading
from typing import Any

# The visibility timeout the poller asks for: the delay before a failed delivery is tried again.
RETRY_SECONDS = 2
WAIT_SECONDS = 1


class DeliveryPoller:
    """Polls `queue_url` on a daemon thread until `stop`."""

    def __init__(self, sqs: Any, queue_url: str) -> None:
        self._sqs = sqs
        self._queue = queue_url
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="authgate-deliveries", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=WAIT_SECONDS + 10)

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                self.poll_once()
            except Exception:  # noqa: BLE001 - moto stopping under us, or a handler bug: keep the stack up
                self._stopping.wait(WAIT_SECONDS)

    def poll_once(self) -> int:
        """One receive and its deliveries; how many messages came."""
        from authgate_cli.local.functions import load_handler

        answer = self._sqs.receive_message(QueueUrl=self._queue, MaxNumberOfMessages=10,
                                           WaitTimeSeconds=WAIT_SECONDS, VisibilityTimeout=RETRY_SECONDS,
                                           MessageSystemAttributeNames=["ApproximateReceiveCount"])
        messages = answer.get("Messages") or []
        if not messages:
            return 0
        event = {"Records": [{"messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
                              "attributes": m.get("Attributes") or {}, "eventSource": "aws:sqs"}
                             for m in messages]}
        result = load_handler("deliver")(event, None)
        retry = {item["itemIdentifier"] for item in result.get("batchItemFailures") or []}
        done = [m for m in messages if m["MessageId"] not in retry]
        if done:
            self._sqs.delete_message_batch(QueueUrl=self._queue, Entries=[
                {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done)])
        return len(messages)
