"""audit_trail.query: the period and the filters `authgate events list` and the console's Events page take, and the
events newest first from the trail's directory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from authgate import audit

NOW = 1_769_860_800_000  # 2026-01-31T12:00:00Z


def event(target: dict[str, str] | None = None, **details: Any) -> dict[str, Any]:
    """A token event of tenant demo, by the client web, for the user usr_1 (or `target`)."""
    return {"action": "token.issued", "tenant": "demo", "actor": {"type": "client", "id": "web"},
            "target": target or {"type": "user", "id": "usr_1"}, "outcome": "success", "details": details}


def test_a_period_is_the_day_before_its_end_unless_it_starts_elsewhere() -> None:
    from authgate.audit_trail.query import period

    assert period(None, None, NOW) == (NOW - 86_400_000, None)
    assert period(None, "2h", NOW) == (NOW - 7_200_000 - 86_400_000, NOW - 7_200_000)
    assert period("2026-01-31", None, NOW) == (NOW - 43_200_000, None)


def test_a_time_neither_iso_nor_an_age_is_refused_naming_its_input() -> None:
    from authgate.audit_trail.query import InvalidTime, period

    with pytest.raises(InvalidTime, match=r"^--until 'soon' is neither an ISO 8601 time in UTC"):
        period("1d", "soon", NOW)


@pytest.mark.parametrize(("filters", "matches"), [
    ({"tenant": "demo"}, True), ({"tenant": "acme"}, False),
    ({"user": "usr_1"}, True), ({"user": "alice"}, True), ({"user": "bob"}, False),
    ({"client": "web"}, True), ({"client": "svc"}, False),
    ({"action": "token.issued"}, True), ({"action": "token.*"}, True), ({"action": "token"}, False),
    ({"tenant": "demo", "action": "user.*"}, False),
])
def test_an_event_matches_every_filter_given(filters: dict[str, str], matches: bool) -> None:
    from authgate.audit_trail.query import Filters, matcher

    assert matcher(Filters(**filters))(event(username="alice")) is matches


def test_a_summary_names_the_parties_and_the_outcome() -> None:
    from authgate.audit_trail.query import summary

    failed = {**event(username="bob"), "time": "T", "outcome": "failure",
              "reason": "invalid", "tenant": ""}
    assert summary(failed) == ("T", "token.issued", "failure (invalid)", "-", "client:web", "user:usr_1 (bob)")


def test_newest_reads_the_trail_newest_first(aws: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches
    from authgate.audit_trail.query import newest
    from authgate.clock import ManualClock, using
    from authgate_cli.local.audit_trail import deliver
    from tests.log_hygiene import LogCapture

    monkeypatch.setenv("AUTHGATE_AUDIT_DIR", str(tmp_path))
    caches.reset()
    clock = ManualClock(NOW / 1000)
    with LogCapture() as capture, using(clock):
        for number in range(3):
            audit.record("token.issued", "demo", actor=audit.client("web"), target=audit.client("web"),
                         details={"n": number})
            clock.advance(1)
        deliver(capture.lines)
    assert [e["details"]["n"] for e in newest(NOW, None, lambda e: True)] == [2, 1, 0]
    assert [e["details"]["n"] for e in newest(NOW + 1000, NOW + 1000, lambda e: True)] == [1]


def test_verified_checks_the_chain_from_the_day_of_since_as_the_command_takes_it(
        aws: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches
    from authgate.audit_trail.query import InvalidTime, verified
    from authgate.clock import ManualClock, using
    from authgate_cli.local.audit_trail import deliver
    from tests.log_hygiene import LogCapture

    monkeypatch.setenv("AUTHGATE_AUDIT_DIR", str(tmp_path))
    caches.reset()
    clock = ManualClock(NOW / 1000)
    with using(clock):
        for _ in range(2):  # one object a day
            with LogCapture() as capture:
                audit.record("token.issued", "demo", actor=audit.client("web"), target=audit.client("web"))
            deliver(capture.lines)
            clock.advance(86_400)
        assert verified(None).verdict() == "INTACT: 2 object(s), sequence 1 to 2, 2 event(s)"
        assert verified("").verdict() == "INTACT: 2 object(s), sequence 1 to 2, 2 event(s)"
        assert verified("2026-02-01").verdict() == "INTACT: 1 object(s), sequence 2 to 2, 1 event(s)"
        assert verified("12h", NOW + 86_400_000).verdict() == "INTACT: 1 object(s), sequence 2 to 2, 1 event(s)"
    with pytest.raises(InvalidTime, match=r"^--since 'soon' is neither an ISO 8601 time in UTC"):
        verified("soon")


def test_a_trusted_key_is_a_kms_keys_arn_as_trust_key_takes_it() -> None:
    from authgate.audit_trail.query import trusted_key
    from authgate.operators.input import InvalidInput

    arn = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    assert trusted_key(arn) == arn
    for value, message in (
            ("alias/audit", "--trust-key 'alias/audit' is not a KMS key's ARN (arn:aws:kms:REGION:ACCOUNT:key/ID)"),
            ("arn:aws:kms:eu-west-1:123456789012:key/a ",
             "--trust-key 'arn:aws:kms:eu-west-1:123456789012:key/a ' starts or ends with a space"),
            ("", "--trust-key must not be empty")):
        with pytest.raises(InvalidInput) as refused:
            trusted_key(value)
        assert str(refused.value) == message
