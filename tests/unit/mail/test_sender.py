"""authgate.mail: the local outbox (one JSON line per entry) and SES v2 SendEmail from the stage's identity (moto)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from authgate import caches
from authgate.mail import outbox
from authgate.mail.sender import Mail, NotSent, available, send


def test_the_outbox_keeps_one_line_per_entry_and_reads_them_back(tmp_path: Path) -> None:
    path = str(tmp_path / "state" / "outbox.jsonl")
    assert outbox.read(path) == []
    threads = [threading.Thread(target=outbox.append, args=(path, "mail"), kwargs={"to": f"u{i}@example.com"})
               for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    outbox.append(path, "backchannel_logout", uri="https://rp.example/logout")
    lines = Path(path).read_text("utf-8").splitlines()
    assert len(lines) == 21 and all(json.loads(line)["id"] for line in lines)
    assert sorted(e["to"] for e in outbox.read(path, "mail")) == sorted(f"u{i}@example.com" for i in range(20))
    (logout,) = outbox.read(path, "backchannel_logout")
    assert set(logout) == {"id", "kind", "created_at", "uri"}
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"cut short')  # a crash mid-line is skipped, never fatal
    assert len(outbox.read(path)) == 21
    with pytest.raises(ValueError):
        outbox.append(path, "mail", text="x" * outbox.MAX_ENTRY)


def test_no_identity_and_no_outbox_means_no_mail(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AUTHGATE_MAIL_IDENTITY", "AUTHGATE_OUTBOX"):
        monkeypatch.delenv(name, raising=False)
    caches.reset()
    assert not available()
    with pytest.raises(NotSent) as refused:
        send(Mail("a@example.com", "s", "t"))
    assert (refused.value.internal, refused.value.retry) == ("no MailIdentity", False)


def test_local_mail_lands_in_the_outbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTHGATE_OUTBOX", str(tmp_path / "outbox.jsonl"))
    caches.reset()
    assert available()
    send(Mail("a@example.com", "Subject", "Body https://x.example/?token=t"))
    (entry,) = outbox.read(str(tmp_path / "outbox.jsonl"))
    assert {k: entry[k] for k in ("kind", "to", "subject", "text")} == {
        "kind": "mail", "to": "a@example.com", "subject": "Subject", "text": "Body https://x.example/?token=t"}


def test_a_stage_sends_through_ses_from_its_identity(aws: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import boto3

    monkeypatch.delenv("AUTHGATE_OUTBOX", raising=False)
    monkeypatch.setenv("AUTHGATE_MAIL_IDENTITY", "mail.example.com")
    caches.reset()
    assert available()
    with pytest.raises(NotSent) as refused:  # SES refuses an unverified identity: not worth a retry
        send(Mail("a@example.com", "Subject", "Body"))
    assert (refused.value.internal, refused.value.retry, str(refused.value)) == (
        "MessageRejected", False, "MessageRejected")
    boto3.client("ses").verify_domain_identity(Domain="mail.example.com")
    send(Mail("a@example.com", "Subject", "Body"))
    assert boto3.client("ses").get_send_quota()["SentLast24Hours"] == 1


@pytest.mark.parametrize(("code", "status", "retry"), [
    ("TooManyRequestsException", 429, True),  # SES throttling
    ("LimitExceededException", 400, True),  # a sending quota reached: it refills
    ("InternalFailure", 500, True),  # SES's own failure
    ("SomethingNew", 503, True),  # any 5xx
    ("MessageRejected", 400, False),
    ("MailFromDomainNotVerifiedException", 400, False),
    ("AccountSuspendedException", 400, False),
])
def test_what_ses_refused_says_whether_to_try_again(aws: None, monkeypatch: pytest.MonkeyPatch, code: str,
                                                    status: int, retry: bool) -> None:
    """SES answers as botocore's Stubber is told to; NotSent carries its error code only, never the mail."""
    from botocore.stub import Stubber

    from authgate.aws import sesv2

    monkeypatch.delenv("AUTHGATE_OUTBOX", raising=False)
    monkeypatch.setenv("AUTHGATE_MAIL_IDENTITY", "mail.example.com")
    caches.reset()
    with Stubber(sesv2()) as stub, pytest.raises(NotSent) as refused:
        stub.add_client_error("send_email", code, http_status_code=status)
        send(Mail("a@example.com", "Subject", "Body https://x.example/?token=secret"))
    assert (refused.value.internal, refused.value.retry, str(refused.value)) == (code, retry, code)
