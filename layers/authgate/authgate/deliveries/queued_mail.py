"""Mail sent through the deliveries queue, so no answer's timing says whether an account exists (docs/users.md,
docs/ciba.md).

A flow that may mail someone (a forgotten password's reset link, a CIBA approval link) queues
one message for every request (`queued`), known person or not: a message for nobody carries no
mail, and the deliver function drops it. The endpoint's work is then the same whoever is named
(its calls are counted in the tests), and it never waits for SES. The deliver function (`deliver`)
hands the mail to SES (authgate.mail.sender); a failure a retry may mend (throttling, SES's own
errors, no answer) is tried again by SQS, up to queue.MAX_ATTEMPTS, then the message waits in
the dead-letter queue. The message holds the link (what the person must receive; the queue is
encrypted at rest and keeps a message a day at most); logs never show the recipient, the body or
the link. Each outcome is one EMF metric (METRICS). On the local stack the mail lands in the
outbox (kind `mail`).
"""

from __future__ import annotations

from typing import Any

from authgate.deliveries import queue
from authgate.http.metrics import record_count
from authgate.logs import get_logger
from authgate.mail.sender import Mail, NotSent, send

KIND = "mail"
METRICS = {"delivered": "MailDelivered", "retried": "MailRetried", "failed": "MailFailed"}


def queued(mail: Mail | None) -> dict[str, Any]:
    """The queued message of one mail; `mail` None for nobody (queued alike, never sent)."""
    return {"kind": KIND, "mail": None if mail is None else mail._asdict()}


def queue_mail(mail: Mail | None) -> None:
    """Queue one mail (None: the same message for nobody); one SendMessageBatch."""
    queue.send([queued(mail)])


def is_message(message: dict[str, Any]) -> bool:
    """Whether a queued message is a mail this version can send."""
    mail = message.get("mail")
    return message.get("kind") == KIND and (mail is None or (
        isinstance(mail, dict) and all(isinstance(mail.get(name), str) for name in Mail._fields)))


def deliver(message: dict[str, Any], attempt: int) -> str:
    """Send one queued mail: "delivered", "retried" (try again later), "failed" (given up) or "dropped" (for
    nobody)."""
    if message["mail"] is None:
        return "dropped"
    mail = Mail(**{name: message["mail"][name] for name in Mail._fields})
    try:
        send(mail)
    except NotSent as exc:
        return _outcome("retried" if exc.retry and attempt < queue.MAX_ATTEMPTS else "failed", attempt, exc.internal)
    return _outcome("delivered", attempt, "")


def _outcome(outcome: str, attempt: int, detail: str) -> str:
    record_count(METRICS[outcome])
    log = get_logger().info if outcome == "delivered" else get_logger().warning
    log(f"mail {outcome}", extra={"attempt": attempt, "detail": detail})
    return outcome
