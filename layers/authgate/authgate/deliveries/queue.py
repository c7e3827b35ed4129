"""Deliveries wait in an SQS queue (template DeliveriesQueue) until the deliver function sends them.

A message is one JSON object with a `kind` ("backchannel_logout", "approval_webhook", "mail") and
its members; it holds no token (what is signed is signed when it is sent: deliveries.deliver) and
no secret but the single-use link of an approval webhook or a mail (deliveries.approval_webhook,
deliveries.queued_mail). SQS keeps each
message until a delivery succeeds, or its receive count passes the queue's maxReceiveCount and it
moves to the dead-letter queue. Sent in batches of ten (SendMessageBatch), one call per ten.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from authgate.logs import get_logger
from authgate.settings import get_settings

BATCH = 10  # SendMessageBatch's limit
# The queue's RedrivePolicy maxReceiveCount (template.yaml): a delivery's last attempt counts as failed.
MAX_ATTEMPTS = 5


def send(messages: Sequence[dict[str, Any]]) -> int:
    """Queue `messages`; how many SQS accepted (a stage without a queue delivers nothing, logged)."""
    if not messages:
        return 0
    queue = get_settings().deliveries_queue
    if not queue:
        get_logger().warning("deliveries dropped: no queue configured", extra={"count": len(messages)})
        return 0
    from botocore.exceptions import BotoCoreError, ClientError

    from authgate.aws import sqs

    accepted = 0
    for start in range(0, len(messages), BATCH):
        chunk = messages[start:start + BATCH]
        try:
            answer = sqs().send_message_batch(QueueUrl=queue, Entries=[
                {"Id": str(i), "MessageBody": json.dumps(m, separators=(",", ":"), sort_keys=True)}
                for i, m in enumerate(chunk)])
        except (BotoCoreError, ClientError) as exc:
            # What happened (a session ended, a request made) stands; only its announcement is lost, and said so.
            code = exc.response.get("Error", {}).get("Code", "") if isinstance(exc, ClientError) else type(exc).__name__
            get_logger().warning("deliveries not queued", extra={"error_code": code, "count": len(chunk)})
            continue
        accepted += len(answer.get("Successful", []))
        for failed in answer.get("Failed", []):
            get_logger().warning("delivery not queued", extra={"error_code": failed.get("Code", ""),
                                                               "kind": chunk[int(failed["Id"])].get("kind", "")})
    return accepted
