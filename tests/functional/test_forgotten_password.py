"""Forgotten passwords through the authorize and deliver functions: the reset mail leaves through the deliveries
queue, so the page's work is the same whoever it names, and the deliver function hands it to SES (moto) or the
local outbox, retrying what SES throttled. Whole responses."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.functional.authorize_support import Browser, Message, page_of, without_request_id
from tests.functional.ciba_support import deliver_queued
from tests.functional.person_events_support import ALICE, Events, by_person, trail
from tests.functional.token_support import aws_calls

SENT = ("If an account matches what you entered, a link to choose a new password is on its way to the account's "
        "email address. It works once, within 15 minutes.")
SENT_BODY_TEXT = f"Check your email {SENT}"
LINK = re.compile(r"http://127\.0\.0\.1:3000/oauth/reset-password\?token=[A-Za-z0-9_-]{43}")


def ask(browser: Browser, username: str) -> dict[str, Any]:
    """The form for tenant demo, then posted for `username`."""
    form = browser.get_raw("tenant=demo", path="/oauth/forgot-password")
    assert form["statusCode"] == 200
    return browser.post([*page_of(form).hidden().items(), ("username", username)], path="/oauth/forgot-password")


def counted(browser: Browser, username: str) -> tuple[dict[str, Any], dict[str, Counter[str]]]:
    """The answer to `username`'s request and the AWS calls made for it, by service and operation."""
    form = browser.get_raw("tenant=demo", path="/oauth/forgot-password")
    fields = [*page_of(form).hidden().items(), ("username", username)]
    with aws_calls("dynamodb") as dynamodb, aws_calls("sqs") as sqs, aws_calls("sesv2") as ses:
        answer = browser.post(fields, path="/oauth/forgot-password")
    return answer, {"dynamodb": dynamodb, "sqs": sqs, "sesv2": ses}


def metric_names(out: str) -> list[str]:
    """The EMF metrics printed in `out`, in order."""
    emitted = [json.loads(line) for line in out.splitlines() if '"_aws"' in line]
    return [m["Name"] for doc in emitted for metric in doc["_aws"]["CloudWatchMetrics"] for m in metric["Metrics"]]


def logged(caplog: pytest.LogCaptureFixture) -> str:
    """Every log record's message and members (what the JSON log line holds), as one text to search."""
    return "\n".join(json.dumps(record.__dict__, default=str) for record in caplog.records)


@pytest.fixture
def ses_stage(demo: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A deployed stage's mail: the local world's SES identity (the IAM check's), verified (moto), no outbox."""
    import boto3

    from authgate import caches
    from tests.deploy.transform import LOCAL_MAIL_IDENTITY

    monkeypatch.delenv("AUTHGATE_OUTBOX", raising=False)
    monkeypatch.setenv("AUTHGATE_MAIL_IDENTITY", LOCAL_MAIL_IDENTITY)
    caches.reset()
    ses = boto3.client("ses", region_name="us-east-1")
    ses.verify_domain_identity(Domain=LOCAL_MAIL_IDENTITY)
    return ses


@pytest.fixture
def outbox(demo: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    from authgate import caches

    path = tmp_path / "outbox.jsonl"
    monkeypatch.setenv("AUTHGATE_OUTBOX", str(path))
    caches.reset()
    return path


@pytest.mark.slow
def test_a_known_and_an_unknown_person_cost_the_same_calls_and_get_the_same_page(
        ses_stage: Any, browser: Browser) -> None:
    """Before the queue, alice's request made one SES SendEmail and one PutItem nobody's did not: a timing oracle."""
    ask(browser, "nobody")  # the first request fills the caches: count the later ones
    known, known_calls = counted(browser, "alice")
    unknown, unknown_calls = counted(browser, "nobody")
    assert known_calls == unknown_calls
    assert known_calls["sqs"] == {"SendMessageBatch": 1} and known_calls["sesv2"] == {}
    for answer in (known, unknown):
        page = page_of(answer)
        assert (page.status, page.text()) == (200, SENT_BODY_TEXT)
    assert (without_request_id(known), known["body"]) == (without_request_id(unknown), unknown["body"])
    # The deliver function then sends alice's mail through SES and drops nobody's.
    assert deliver_queued() == 3
    assert ses_stage.get_send_quota()["SentLast24Hours"] == 1
    assert deliver_queued() == 0  # both done: nothing comes back


def test_the_mail_arrives_in_the_outbox_through_the_deliver_function(
        outbox: Path, browser: Browser, caplog: pytest.LogCaptureFixture) -> None:
    answer = ask(browser, "alice")
    assert (answer["statusCode"], page_of(answer).text()) == (200, SENT_BODY_TEXT)
    assert page_of(answer).messages == [Message("status", "message success", SENT)]
    assert not outbox.exists()  # queued, not sent while the person waits
    assert deliver_queued() == 1
    (mail,) = [json.loads(line) for line in outbox.read_text().splitlines()]
    link = LINK.search(mail["text"])
    assert link is not None
    assert {k: mail[k] for k in ("kind", "to", "subject", "text")} == {
        "kind": "mail", "to": "alice@demo.example", "subject": "Choose a new password",
        "text": f"Someone asked to reset the password of alice. To choose a new one, open\n\n{link.group(0)}\n\n"
                "The link works once, within 15 minutes. If you did not ask, ignore this mail: your password "
                "stays as it is.\n"}
    token = link.group(0).rpartition("=")[2]
    assert token not in logged(caplog) and "alice@demo.example" not in logged(caplog)
    assert ("INFO", "mail delivered") in [(r.levelname, r.getMessage()) for r in caplog.records]
    # The link works: its page asks for the new password.
    form = browser.get_raw(f"token={token}", path="/oauth/reset-password")
    assert (form["statusCode"], page_of(form).hidden()["token"]) == (200, token)


def test_nobodys_link_never_works_and_nothing_is_mailed(outbox: Path, browser: Browser) -> None:
    """The write made for nobody (so the work is the same) is a link that is never sent and never opens a page."""
    from authgate.stores.password_resets import PasswordResetStore

    token = PasswordResetStore().create("demo", "")
    answer = ask(browser, "nobody")
    assert (answer["statusCode"], page_of(answer).text()) == (200, SENT_BODY_TEXT)
    assert deliver_queued() == 1 and not outbox.exists()
    refused = browser.get_raw(f"token={token}", path="/oauth/reset-password")
    assert refused["statusCode"] == 400 and "password_reset_link_invalid" in refused["body"]


def test_a_throttled_ses_send_is_retried_then_delivered(ses_stage: Any, browser: Browser,
                                                        capsys: pytest.CaptureFixture[str],
                                                        caplog: pytest.LogCaptureFixture) -> None:
    """SES answers 429 TooManyRequestsException once (botocore's Stubber): the message comes back (SQS's visibility
    timeout) and the next attempt sends it; one metric per outcome, and the log names no recipient."""
    from botocore.stub import Stubber

    from authgate.aws import sesv2
    from authgate.deliveries.deliver import deliver_one
    from tests.functional.ciba_support import queued_record

    ask(browser, "alice")
    record = queued_record("mail")

    capsys.readouterr()
    with Stubber(sesv2()) as stub:
        stub.add_client_error("send_email", "TooManyRequestsException", http_status_code=429)
        assert deliver_one(record) == "retried"
    assert ses_stage.get_send_quota()["SentLast24Hours"] == 0
    assert deliver_one({**record, "attributes": {"ApproximateReceiveCount": "2"}}) == "delivered"
    assert ses_stage.get_send_quota()["SentLast24Hours"] == 1
    assert metric_names(capsys.readouterr().out) == ["MailRetried", "MailDelivered"]
    assert "alice@demo.example" not in logged(caplog) and "reset-password" not in logged(caplog)


def test_a_rejected_mail_is_given_up_at_once(ses_stage: Any, browser: Browser, capsys: pytest.CaptureFixture[str],
                                            caplog: pytest.LogCaptureFixture) -> None:
    from authgate.deliveries.deliver import deliver_one
    from tests.deploy.transform import LOCAL_MAIL_IDENTITY
    from tests.functional.ciba_support import queued_record

    ses_stage.delete_identity(Identity=LOCAL_MAIL_IDENTITY)  # SES: MessageRejected, the identity is not verified
    ask(browser, "alice")
    capsys.readouterr()
    caplog.clear()
    assert deliver_one(queued_record("mail")) == "failed"
    assert metric_names(capsys.readouterr().out) == ["MailFailed"]
    assert [(r.levelname, r.getMessage(), r.__dict__.get("attempt"), r.__dict__.get("detail"))
            for r in caplog.records] == [("WARNING", "mail failed", 1, "MessageRejected")]
    assert "alice@demo.example" not in logged(caplog)


def test_each_request_and_the_reset_are_recorded_for_the_auditor_alone(outbox: Path, browser: Browser,
                                                                       audit_events: Events) -> None:
    assert page_of(ask(browser, "alice")).text() == page_of(ask(browser, "nobody")).text() == SENT_BODY_TEXT
    assert deliver_queued() == 2
    (mail,) = [json.loads(line) for line in outbox.read_text().splitlines()]
    link = LINK.search(mail["text"])
    assert link is not None
    token = link.group(0).rpartition("=")[2]
    form = page_of(browser.get_raw(f"token={token}", path="/oauth/reset-password"))
    done = browser.post([*form.hidden().items(), ("password", "alice-chosen-pass-1"), ("confirm", "alice-chosen-pass-1")],
                        path="/oauth/reset-password")
    assert page_of(done).text().startswith("Password changed")
    assert trail(audit_events) == [
        by_person("password.reset_requested", ALICE, "alice"),
        by_person("password.reset_requested", "unknown", "nobody", "failure", "unknown_account"),
        by_person("password.reset", ALICE, "alice", by="reset_link")]
    assert token not in json.dumps(audit_events()) and "alice-chosen-pass-1" not in json.dumps(audit_events())
    assert "alice@demo.example" not in json.dumps(audit_events())
