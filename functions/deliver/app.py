"""Lambda handler: the deliveries queue's consumer (SQS event source, partial batch responses).

Each record is one delivery (authgate.deliveries.deliver): a back-channel logout token POSTed to
a client (OpenID Connect Back-Channel Logout 1.0 2.5), a tenant's CIBA approval webhook, a
mail handed to SES, a Shared Signals SET, or audit events whose signals are tried again through the
transmitter (authgate.deliveries.pending_signals). The answer names the records to try again
(`batchItemFailures`); SQS retries them after the queue's visibility timeout, and moves a record
to the dead-letter queue past maxReceiveCount.
"""

from __future__ import annotations

from typing import Any

from authgate.deliveries.deliver import deliver_batch
from authgate.ssf.signals import on_events


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    failed = deliver_batch(event.get("Records") or [], signals=on_events)
    return {"batchItemFailures": [{"itemIdentifier": message_id} for message_id in failed]}
