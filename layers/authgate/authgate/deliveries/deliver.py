"""Sending queued deliveries: one POST each under the outbound rules, SQS retrying what failed (BCL 2.5, 2.8).

Five kinds: a back-channel logout token (here), an approval webhook (deliveries.approval_webhook),
a mail (deliveries.queued_mail), a Shared Signals SET (deliveries.security_events) and audit events
whose signals wait to be tried again (deliveries.pending_signals).

The deliver function gets a batch of SQS records and answers which failed (partial batch
response, `batchItemFailures`): SQS makes those visible again after the queue's visibility
timeout and tries again, up to its maxReceiveCount, then moves them to the dead-letter queue. A
failure that a retry cannot mend (a refused address, a bad URL, a 4xx, a redirect) is not
retried. Each outcome is one EMF metric, `BackchannelLogoutDelivered`, `...Retried` or
`...Failed`, and one log line with the client and the reason (never the token). On the local
stack every attempt also lands in the outbox (authgate.mail.outbox, kind `backchannel_logout`),
token included, so the demo app shows what an RP received.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from authgate.deliveries import approval_webhook, pending_signals, queued_mail, security_events
from authgate.deliveries.backchannel_logout import KIND
from authgate.deliveries.queue import MAX_ATTEMPTS
from authgate.http.metrics import record_count
from authgate.logs import get_logger
from authgate.outbound.post import Failed, post_form
from authgate.settings import get_settings
from authgate.tokens.logout_token import issue_logout_token

METRICS = {"delivered": "BackchannelLogoutDelivered", "retried": "BackchannelLogoutRetried",
           "failed": "BackchannelLogoutFailed"}

Poster = Callable[..., int]


def _alg(message: dict[str, Any], offered: tuple[str, ...]) -> str:
    """The logout token's algorithm: the client's ID tokens' as queued; RS256 (the default, OIDC Dynamic
    Client Registration 1.0 2) for a message queued before it was written, or naming one no longer offered."""
    alg = message.get("alg")
    return alg if isinstance(alg, str) and alg in offered else offered[0]


def deliver_batch(records: Sequence[dict[str, Any]], post: Poster = post_form,
                  signals: pending_signals.Signals | None = None) -> list[str]:
    """Deliver each SQS record; the messageIds to try again (SQS partial batch response). `signals`: the
    Shared Signals transmitter, for audit events parked for it (deliveries.pending_signals)."""
    return [record["messageId"] for record in records if deliver_one(record, post, signals) == "retried"]


def deliver_one(record: dict[str, Any], post: Poster = post_form,
                signals: pending_signals.Signals | None = None) -> str:
    """Deliver one record: "delivered", "retried" (try again later), "failed" (given up), "dropped" (an
    approval webhook or a mail for nobody, a SET whose stream is gone) or "held" (a SET of a paused stream)."""
    attempt = int((record.get("attributes") or {}).get("ApproximateReceiveCount") or 1)
    try:
        message = json.loads(record.get("body") or "")
    except ValueError:
        message = None
    if isinstance(message, dict) and approval_webhook.is_message(message):
        return approval_webhook.deliver(message, attempt)
    if isinstance(message, dict) and queued_mail.is_message(message):
        return queued_mail.deliver(message, attempt)
    if isinstance(message, dict) and security_events.is_message(message):
        return security_events.deliver(message, attempt)
    if isinstance(message, dict) and signals is not None and pending_signals.is_message(message):
        return pending_signals.deliver(message, attempt, signals)
    if not isinstance(message, dict) or message.get("kind") != KIND or not all(
            isinstance(message.get(k), str) for k in ("issuer", "client_id", "uri", "sub", "sid", "jti")):
        get_logger().error("delivery of an unknown kind dropped", extra={"message_id": record.get("messageId")})
        return _outcome("failed", {}, attempt, "not a delivery this version knows")
    settings = get_settings()
    token = issue_logout_token(issuer=message["issuer"], client_id=message["client_id"], sub=message["sub"],
                               sid=message["sid"], jti=message["jti"], alg=_alg(message, settings.id_token_algs))
    try:
        status = post(message["uri"], {"logout_token": token},
                      allow_loopback=settings.allow_loopback_outbound)
    except Failed as exc:
        outcome = "retried" if exc.retry and attempt < MAX_ATTEMPTS else "failed"
        return _outcome(outcome, message, attempt, exc.internal, token)
    return _outcome("delivered", message, attempt, f"HTTP {status}", token)


def _outcome(outcome: str, message: dict[str, Any], attempt: int, detail: str, token: str = "") -> str:
    record_count(METRICS[outcome])
    log = get_logger().info if outcome == "delivered" else get_logger().warning
    log(f"back-channel logout {outcome}", extra={"client_id": message.get("client_id", ""),
                                                 "sid": message.get("sid", ""), "attempt": attempt,
                                                 "detail": detail})
    outbox = get_settings().outbox
    if outbox and message:
        from authgate.mail import outbox as local_outbox

        local_outbox.append(outbox, KIND, client_id=message["client_id"], uri=message["uri"], sub=message["sub"],
                            sid=message.get("sid", ""), outcome=outcome, attempt=attempt, detail=detail,
                            logout_token=token)
    return outcome
