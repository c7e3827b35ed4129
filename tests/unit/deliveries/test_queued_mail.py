"""deliveries.queued_mail: a mail queued for everyone a flow may write to, sent by the deliver function, or dropped."""

from __future__ import annotations

from pathlib import Path

import pytest

from authgate import caches
from authgate.deliveries.queued_mail import KIND, METRICS, deliver, is_message, queued
from authgate.mail import outbox
from authgate.mail.sender import Mail

MAIL = Mail("bob@example.com", "Approve a payment", "Open https://auth.example.com/oauth/approve#link")


def test_a_mail_and_a_mail_for_nobody_are_queued_alike() -> None:
    assert queued(MAIL) == {"kind": KIND, "mail": {"to": "bob@example.com", "subject": "Approve a payment",
                                                   "text": "Open https://auth.example.com/oauth/approve#link"}}
    assert queued(None) == {"kind": "mail", "mail": None}
    assert is_message(queued(MAIL)) and is_message(queued(None))


@pytest.mark.parametrize("message", [
    {"kind": "mail", "mail": {"to": "a@example.com", "subject": "s"}},    # a field missing
    {"kind": "mail", "mail": {"to": 1, "subject": "s", "text": "t"}},     # a field not a string
    {"kind": "mail", "mail": "bob@example.com"},
    {"kind": "approval_webhook", "mail": None},
])
def test_what_is_not_a_mail_this_version_sends(message: dict[str, object]) -> None:
    assert not is_message(message)


def test_a_mail_for_nobody_is_dropped_and_a_mail_is_handed_over(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """On the local stack the mail lands in the outbox (authgate.mail.sender); SES on a stage."""
    path = tmp_path / "outbox.jsonl"
    monkeypatch.setenv("AUTHGATE_OUTBOX", str(path))
    caches.reset()
    assert deliver(queued(None), 1) == "dropped"
    assert not path.exists()
    assert deliver(queued(MAIL), 1) == "delivered"
    (entry,) = outbox.read(str(path))
    assert {k: entry[k] for k in ("kind", "to", "subject", "text")} == {"kind": "mail", **MAIL._asdict()}
    assert METRICS == {"delivered": "MailDelivered", "retried": "MailRetried", "failed": "MailFailed"}
    caches.reset()
