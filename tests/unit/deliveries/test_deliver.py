"""deliveries.deliver: each queued record sent by its kind, and SQS told which to try again (partial batch response)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from authgate import caches
from authgate.deliveries import approval_webhook, queued_mail
from authgate.deliveries.deliver import METRICS, deliver_batch, deliver_one
from authgate.mail import outbox

LOGOUT = {"kind": "backchannel_logout", "issuer": "http://127.0.0.1:3000", "client_id": "demo-web",
          "uri": "https://10.0.0.1/bcl", "sub": "usr_a", "sid": "sid-1", "jti": "jti-1"}


def record(message_id: str, body: object, attempt: int = 1) -> dict[str, Any]:
    text = body if isinstance(body, str) else json.dumps(body)
    return {"messageId": message_id, "body": text, "attributes": {"ApproximateReceiveCount": str(attempt)}}


@pytest.mark.parametrize("body", [
    "not json", "[]", {"kind": "carrier_pigeon"}, {**LOGOUT, "sid": None},
    {key: value for key, value in LOGOUT.items() if key != "jti"},
])
def test_what_this_version_cannot_send_is_given_up_and_never_retried(
        body: object, log_lines: Callable[[], list[dict[str, Any]]]) -> None:
    assert deliver_one(record("m", body)) == "failed"
    assert deliver_batch([record("m", body)]) == []
    assert "delivery of an unknown kind dropped" in [line["message"] for line in log_lines()]


def test_a_webhook_or_a_mail_for_nobody_is_dropped() -> None:
    records = [record("hook", approval_webhook.queued("demo", "https://hooks.example/a", None)),
               record("mail", queued_mail.queued(None))]
    assert [deliver_one(r) for r in records] == ["dropped", "dropped"]
    assert deliver_batch(records) == []


def test_a_logout_token_to_a_refused_address_fails_for_good_signed_with_an_offered_alg(
        keys: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A private address is never posted to and a retry cannot mend it; an alg no longer offered (or none queued)
    is RS256 (OIDC Dynamic Client Registration 1.0 2). The local outbox keeps the attempt and its token."""
    import jwt

    monkeypatch.setenv("AUTHGATE_OUTBOX", str(tmp_path / "outbox.jsonl"))
    caches.reset()
    assert deliver_one(record("m", {**LOGOUT, "alg": "HS256"}, attempt=2)) == "failed"
    (entry,) = outbox.read(str(tmp_path / "outbox.jsonl"), "backchannel_logout")
    token = entry.pop("logout_token")
    assert {k: entry[k] for k in ("client_id", "uri", "sub", "sid", "outcome", "attempt")} == {
        "client_id": "demo-web", "uri": "https://10.0.0.1/bcl", "sub": "usr_a", "sid": "sid-1", "outcome": "failed",
        "attempt": 2}
    assert jwt.get_unverified_header(token)["alg"] == "RS256"
    assert METRICS["failed"] == "BackchannelLogoutFailed"
    caches.reset()
