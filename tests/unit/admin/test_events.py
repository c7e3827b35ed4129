"""`authgate events list | tail | verify` against a trail's directory (the local stack's; a bucket reads alike)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from authgate import audit
from authgate.audit_trail.consumer import current_trail
from authgate_cli.admin import arguments
from authgate_cli.admin.events import list_events, tail_events, verify_events, when
from authgate_cli.local.audit_trail import deliver
from authgate_cli.main import build_parser
from tests.log_hygiene import LogCapture

NOW = 1_769_860_800_000  # 2026-01-31T12:00:00Z


@pytest.fixture
def trail(aws: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A local trail (AUTHGATE_AUDIT_DIR) holding four events: two tokens, a failure, a disabled user."""
    from authgate import caches
    from authgate.clock import ManualClock, using

    monkeypatch.setenv("AUTHGATE_AUDIT_DIR", str(tmp_path))
    caches.reset()
    with LogCapture() as capture, using(ManualClock(NOW / 1000)):
        audit.record("token.issued", "demo", actor=audit.client("web"), target=audit.user("u-1", username="alice"),
                     details={"client_id": "web"})
        audit.record("client.authentication_failed", "demo", actor=audit.client("svc"), target=audit.client("svc"),
                     outcome="failure", reason="wrong_secret")
        audit.record("token.issued", "acme", actor=audit.client("acme-svc"), target=audit.client("acme-svc"))
        audit.record("user.disabled", "demo", actor=audit.operator("ops", "local:ops"),
                     target=audit.user("u-1", username="alice"))
        deliver(capture.lines[:2])
        deliver(capture.lines[2:])
    return tmp_path


def parse(*argv: str) -> Any:
    return build_parser(["events", *argv]).parse_args(["events", *argv])


def listed(*argv: str) -> list[dict[str, Any]]:
    out = io.StringIO()
    assert list_events(parse("list", "--json", "--since", "2026-01-31", *argv), out) == 0
    return json.loads(out.getvalue())


def test_filters_combine(trail: Path) -> None:
    assert [e["action"] for e in listed()] == ["token.issued", "client.authentication_failed", "token.issued",
                                              "user.disabled"]
    assert [e["tenant"] for e in listed("--tenant", "acme")] == ["acme"]
    assert [e["action"] for e in listed("--user", "alice")] == ["token.issued", "user.disabled"]
    assert [e["action"] for e in listed("--user", "u-1", "--action", "user.*")] == ["user.disabled"]
    assert [e["action"] for e in listed("--client", "web")] == ["token.issued"]
    assert listed("--until", "2026-01-30") == []


def test_a_table_by_default(trail: Path) -> None:
    out = io.StringIO()
    list_events(parse("list", "--since", "2026-01-31", "--action", "client.authentication_failed"), out)
    assert out.getvalue().splitlines() == [
        "TIME                      ACTION                        OUTCOME                 TENANT  ACTOR       TARGET",
        "2026-01-31T12:00:00.000Z  client.authentication_failed  failure (wrong_secret)  demo    client:svc  client:svc",
    ]


def test_tail_shows_the_newest_then_what_is_kept_next(trail: Path) -> None:
    out = io.StringIO()
    assert tail_events(parse("tail", "--last", "1", "--json", "--interval", "0.1"), out, polls=1) == 0
    assert [json.loads(line)["action"] for line in out.getvalue().splitlines()] == ["user.disabled"]


def test_verify_says_intact_or_names_what_changed(trail: Path) -> None:
    out = io.StringIO()
    assert verify_events(parse("verify"), out) == 0
    assert out.getvalue() == "INTACT: 2 object(s), sequence 1 to 2, 4 event(s)\n"
    first = current_trail().store.names(current_trail().store.dates()[0])[0]
    (trail / first).chmod(0o600)
    (trail / first).write_bytes((trail / first).read_bytes().replace(b'"demo"', b'"evil"'))
    out = io.StringIO()
    assert verify_events(parse("verify", "--json"), out) == 1
    assert json.loads(out.getvalue())["intact"] is False


@pytest.mark.parametrize(("text", "expected"), [
    ("2026-01-31", NOW - 43_200_000), ("2026-01-31T12:00:00Z", NOW), ("2026-01-31T12:00:00.250Z", NOW),
    ("2026-01-31T12:00", NOW), ("90s", NOW - 90_000), ("15m", NOW - 900_000), ("2h", NOW - 7_200_000),
    ("7d", NOW - 604_800_000),
])
def test_times_are_utc_or_ages(text: str, expected: int) -> None:
    assert when(text, "--since", NOW) == expected


@pytest.mark.parametrize("text", ["yesterday", "2026-13-01", "5y", "-1d", ""])
def test_other_times_are_refused_in_one_line(text: str) -> None:
    with pytest.raises(arguments.InvalidInput, match="--since"):
        when(text, "--since", NOW)


@pytest.mark.parametrize(("argv", "line"), [
    (("tail", "--interval", "0"), "authgate events: --interval must be between 0.1 and 600, got 0.0\n"),
    (("list", "--limit", "0"), "authgate events: --limit must be between 1 and 100000, got 0\n"),
    (("list", "--until", "soon"), ("authgate events: --until 'soon' is neither an ISO 8601 time in UTC "
                                   "(2026-01-31T12:00:00Z, 2026-01-31) nor an age (90s, 15m, 2h, 7d)\n")),
    (("verify", "--trust-key", "alias/audit"), ("authgate events: --trust-key 'alias/audit' is not a KMS key's ARN "
                                                "(arn:aws:kms:REGION:ACCOUNT:key/ID)\n")),
    (("verify", "--trust-key", "arn:aws:kms:eu-west-1:123456789012:key/a\x07"),
     ("authgate events: --trust-key 'arn:aws:kms:eu-west-1:123456789012:key/a\\x07' contains the control character "
      "U+0007\n")),
])
def test_bad_arguments_are_refused_before_any_stack_is_looked_for(argv: tuple[str, ...], line: str,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from authgate_cli.admin.events import _run

    assert _run(parse(*argv)) == 2
    assert capsys.readouterr() == ("", line)
