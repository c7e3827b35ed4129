"""When AWS refuses or fails a read of the audit trail (docs/console.md, "Events"): the Events pages answer with the
console's 503 page, a person's page still shows with its events section saying they cannot be read now, and
`authgate events list|tail|verify` print one line and exit 2; AWS's code is logged once, never a traceback. The
failures are moto's own states: the audit bucket deleted, KMS's endpoint not answering.
"""

from __future__ import annotations

import io
import json
import socket
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlencode

import pytest

from authgate import audit
from tests.audit_support import AuditStage
from tests.functional.authorize_support import page_of
from tests.functional.console_support import (
    CONSOLE_PAGE_HEADERS,
    assert_console_error_page,
    console_event,
    operator_session,
    page_headers,
)
from tests.log_hygiene import LogCapture

Invoke = Any
Lines = Callable[[], list[dict[str, Any]]]
UNAVAILABLE = ("The audit trail cannot be read now: AWS refused or failed the read. Try again in a minute; if it goes "
               "on, the console's log names AWS's error under this request id.")
UNREADABLE = "The events cannot be read now: AWS refused or failed the read of the audit trail. Try again in a minute."


def keep_one(stage: AuditStage) -> None:
    """One event kept in the stage's bucket, as the audit function keeps it."""
    from authgate_cli.local.functions import load_handler

    with LogCapture() as capture:
        audit.record("token.issued", "demo", actor=audit.client("demo-web"), target=audit.client("demo-web"))
    load_handler("audit")({"Records": stage.records(capture.lines)}, None)


def delete_bucket(stage: AuditStage) -> None:
    """The audit bucket gone (emptied of its versions first, as only a bucket's deletion allows)."""
    from tests import aws_state

    s3 = aws_state.client("s3")
    for version in s3.list_object_versions(Bucket=stage.bucket).get("Versions", []):
        s3.delete_object(Bucket=stage.bucket, Key=version["Key"], VersionId=version["VersionId"],
                         BypassGovernanceRetention=True)
    s3.delete_bucket(Bucket=stage.bucket)


def unreachable_kms(monkeypatch: pytest.MonkeyPatch) -> str:
    """KMS from now on at an address nothing listens on (a connection refused at once, as an endpoint down)."""
    from authgate import caches

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    monkeypatch.setenv("AWS_ENDPOINT_URL_KMS", url)
    caches.reset()
    return url


def unavailable_page(result: dict[str, Any]) -> None:
    """The console's error page, service_unavailable, 503, with a minute's Retry-After."""
    headers = dict(result["multiValueHeaders"])
    assert headers.pop("Retry-After") == ["60"]
    assert_console_error_page({**result, "multiValueHeaders": headers}, "service_unavailable", UNAVAILABLE, 503)


def said_once(lines: list[dict[str, Any]], internal: str) -> None:
    """The App's one line of the failure, with AWS's code; nothing unhandled, no traceback anywhere."""
    failed = [line for line in lines if line.get("message") == "request failed"]
    assert [(line["error_code"], line["status"], line["internal"]) for line in failed] == [
        ("service_unavailable", 503, internal)]
    assert not [line for line in lines if line.get("message") == "unhandled exception" or "exception" in line
                or "Traceback" in json.dumps(line)]


@pytest.mark.parametrize(("path", "query"), [
    ("/console/events", ""), ("/console/events", "tenant=demo&since=7d"),
    ("/console/event", "id=01977420-dc7b-7b31-8987-0679acf9e48f"), ("/console/events/verify", ""),
    ("/console/events/verify", "since=2025-06-15"),
])
def test_the_events_pages_answer_503_when_the_bucket_is_gone(demo: Any, invoke: Invoke, audit_stage: AuditStage,
                                                             log_lines: Lines, path: str, query: str) -> None:
    delete_bucket(audit_stage)
    result = invoke("console", console_event("GET", path, query, cookie=operator_session()))
    unavailable_page(result)
    said_once(log_lines(), "audit trail: ListObjectsV2 NoSuchBucket")


def test_verify_answers_503_when_kms_cannot_check_a_seal(demo: Any, invoke: Invoke, audit_stage: AuditStage,
                                                         monkeypatch: pytest.MonkeyPatch, log_lines: Lines) -> None:
    keep_one(audit_stage)
    unreachable_kms(monkeypatch)
    result = invoke("console", console_event("GET", "/console/events/verify", "", cookie=operator_session()))
    unavailable_page(result)
    said_once(log_lines(), "audit trail: AWS EndpointConnectionError")


def test_a_persons_page_still_shows_and_says_their_events_cannot_be_read_now(
        demo: Any, invoke: Invoke, audit_stage: AuditStage, log_lines: Lines) -> None:
    def person() -> dict[str, Any]:
        return invoke("console", console_event("GET", "/console/person", urlencode({"tenant": "demo",
                                                                                    "username": "bob"}),
                                               cookie=operator_session()))

    readable = person()
    assert readable["statusCode"] == 200
    intact = page_of(readable).text()
    delete_bucket(audit_stage)
    result = person()
    assert result["statusCode"] == 200 and page_headers(result) == CONSOLE_PAGE_HEADERS
    # The whole page as it was, but for the events section's sentence.
    assert page_of(result).text() == intact.replace("No event of the last 24 hours names bob.", UNREADABLE)
    assert intact.endswith("Recent events No event of the last 24 hours names bob. Every event of bob")
    warned = [line for line in log_lines() if line.get("message") == "audit trail unreadable"]
    assert [(line["level"], line["operation"], line["aws_error"]) for line in warned] == [
        ("WARNING", "ListObjectsV2", "NoSuchBucket")]
    assert not [line for line in log_lines() if line.get("message") in ("unhandled exception", "request failed")]


# `authgate events --stack-name`: the stack's outputs name the bucket and the MAC key, as CloudFormation reports them.
STACK = "authgate-staging"


@pytest.fixture
def deployed(aws: None, audit_stage: AuditStage, monkeypatch: pytest.MonkeyPatch) -> Iterator[AuditStage]:
    """A stack in moto's CloudFormation whose outputs name the audit stage (its tables' names too); the environment
    the command applies is undone afterwards."""
    import os

    from authgate import caches
    from authgate_cli.local import template
    from tests import aws_state

    outputs = {f"{name}Name": {"Value": f"{STACK}-{name}"} for name in template.resources("AWS::DynamoDB::Table")}
    outputs |= {"Issuer": {"Value": "https://auth.example.com"}, "AuditBucketName": {"Value": audit_stage.bucket},
                "AuditMacKeyArn": {"Value": audit_stage.mac_key}}
    aws_state.client("cloudformation").create_stack(StackName=STACK, TemplateBody=json.dumps({
        "Parameters": {"Stage": {"Type": "String"}}, "Resources": {"Topic": {"Type": "AWS::SNS::Topic"}},
        "Outputs": outputs}), Parameters=[{"ParameterKey": "Stage", "ParameterValue": "staging"}])
    saved = dict(os.environ)
    yield audit_stage
    os.environ.clear()
    os.environ.update(saved)
    caches.reset()


def command(*argv: str) -> tuple[int, str, list[str]]:
    """`authgate events ARGV --stack-name authgate-staging --region us-east-1`: exit status, stdout, stderr's lines."""
    from contextlib import redirect_stderr, redirect_stdout

    from authgate_cli.admin.events import _run
    from authgate_cli.main import build_parser

    full = ["events", *argv, "--stack-name", STACK, "--region", "us-east-1"]
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = _run(build_parser(full).parse_args(full))
    return status, out.getvalue(), err.getvalue().splitlines()


TARGET = f"target: stack {STACK} at https://auth.example.com (stage staging)"


@pytest.mark.slow
@pytest.mark.parametrize("argv", [("list",), ("list", "--json", "--since", "7d"), ("tail",), ("verify",)])
def test_the_command_says_one_line_and_exits_2_when_the_bucket_is_gone(deployed: AuditStage,
                                                                       argv: tuple[str, ...]) -> None:
    delete_bucket(deployed)
    assert command(*argv) == (2, "", [
        TARGET, "authgate events: AWS answered ListObjectsV2 with NoSuchBucket: The specified bucket does not exist"])


@pytest.mark.slow
def test_verify_says_one_line_and_exits_2_when_kms_cannot_check_a_seal(deployed: AuditStage,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    keep_one(deployed)
    url = unreachable_kms(monkeypatch)
    assert command("verify") == (2, "", [
        TARGET, f"authgate events: cannot reach AWS at {url}/: check the network, the region and AWS_ENDPOINT_URL"])


@pytest.mark.slow
def test_the_stacks_key_is_the_one_the_command_trusts(deployed: AuditStage) -> None:
    keep_one(deployed)
    assert command("verify") == (0, "INTACT: 1 object(s), sequence 1 to 1, 1 event(s)\n", [TARGET])

