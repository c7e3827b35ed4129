"""Admin commands in the audit trail: who ran each change (the AWS principal on a stage, the OS user locally),
what it changed and how it ended; a change the trail cannot take fails the command."""

from __future__ import annotations

import base64
import getpass
import io
from pathlib import Path
from typing import Any

import pytest

from authgate.audit.catalogue import catalogue
from authgate.audit_trail.consumer import current_trail
from authgate.audit_trail.reader import events
from authgate_cli.admin import operator_audit
from authgate_cli.admin.user_actions import disable_user
from authgate_cli.local.functions import load_handler
from authgate_cli.main import build_parser
from tests import aws_state
from tests.audit_support import AuditStage
from tests.demo import Demo


def parse(*argv: str) -> Any:
    return build_parser(list(argv)).parse_args(list(argv))


def run(argv: tuple[str, ...]) -> int:
    """What target.run does around a command once the stack is chosen: record it, run it, finish it."""
    args = parse(*argv)
    recording = operator_audit.start(args, argv[0])
    assert recording is not None
    status = disable_user(args, io.StringIO())
    recording.finish(status)
    return status


DISABLE = ("users", "disable", "--tenant", "demo", "--username", "bob")


def test_locally_the_os_user_is_recorded_with_the_change(demo: Demo, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_AUDIT_DIR", str(tmp_path))
    caches.reset()
    assert run(DISABLE) == 0
    (event,) = events(current_trail())
    user = getpass.getuser()
    assert {k: event[k] for k in ("tenant", "actor", "action", "target", "outcome", "source_ip")} == {
        "tenant": "demo", "actor": {"type": "operator", "id": user, "principal": f"local:{user}"},
        "action": "user.disabled", "target": {"type": "user", "id": "usr_demobob000000000000000"},
        "outcome": "success", "source_ip": ""}
    assert event["details"] == {"username": "bob", "email": "bob@demo.example", "command": "authgate users disable",
                                "tenant": "demo"}
    assert event["user_agent"].startswith("authgate-cli/") and event["request_id"]


def test_a_refused_command_is_recorded_as_a_failure(demo: Demo, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_AUDIT_DIR", str(tmp_path))
    caches.reset()
    assert run(("users", "disable", "--tenant", "demo", "--username", "nobody")) == 2
    (event,) = events(current_trail())
    assert (event["outcome"], event["reason"], event["target"]) == ("failure", "exit_status_2",
                                                                    {"type": "user", "id": ""})


def test_on_a_stage_the_aws_principal_is_recorded_through_the_stream(demo: Demo, audit_stage: AuditStage,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    kinesis = aws_state.client("kinesis")
    kinesis.create_stream(StreamName="AuditStream", ShardCount=1)
    monkeypatch.setenv("AUTHGATE_STAGE", "staging")
    # The resources of the IAM check's local world (tests/deploy/transform.py), on a stage that is not local.
    monkeypatch.setenv("AUTHGATE_STACK_NAME", "local")
    monkeypatch.setenv("AUTHGATE_AUDIT_STREAM", "AuditStream")
    caches.reset()
    assert run(DISABLE) == 0
    shard = kinesis.describe_stream(StreamName="AuditStream")["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = kinesis.get_shard_iterator(StreamName="AuditStream", ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    put = kinesis.get_records(ShardIterator=iterator)["Records"]
    load_handler("audit")({"Records": [
        {"eventID": f"{shard}:{r['SequenceNumber']}", "kinesis": {
            "data": base64.b64encode(r["Data"]).decode(), "sequenceNumber": r["SequenceNumber"]}} for r in put]}, None)
    (event,) = events(current_trail())
    arn = aws_state.client("sts").get_caller_identity()["Arn"]
    assert (event["actor"], event["action"]) == (
        {"type": "operator", "id": arn.rsplit("/", 1)[-1], "principal": arn}, "user.disabled")


def test_a_change_the_trail_cannot_take_fails_the_command(demo: Demo, audit_stage: AuditStage,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_STAGE", "staging")
    monkeypatch.setenv("AUTHGATE_AUDIT_STREAM", "NoSuchStream")
    caches.reset()
    args = parse(*DISABLE)
    recording = operator_audit.start(args, "users")
    assert recording is not None and disable_user(args, io.StringIO()) == 0
    with pytest.raises(operator_audit.NotRecorded) as problem:
        recording.finish(0)
    assert operator_audit.report("users", problem.value) == 1
    assert capsys.readouterr().err.startswith("authgate users: the change was made but the audit trail did not "
                                              "record it (ResourceNotFoundException: ")


def test_only_commands_that_change_something_are_recorded() -> None:
    assert operator_audit.start(parse("users", "list", "--tenant", "demo"), "users") is None
    assert operator_audit.start(parse("keys", "list"), "keys") is None
    assert {action for action, _ in operator_audit.COMMANDS.values()} <= set(catalogue())


def test_an_owner_granting_and_revoking_a_role_is_recorded_against_the_operator(
        demo: Demo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches
    from authgate_cli.admin.operators import act

    monkeypatch.setenv("AUTHGATE_AUDIT_DIR", str(tmp_path))
    caches.reset()
    for argv in (("operators", "grant", "--username", "olivia", "--role", "support", "--tenant", "acme"),
                 ("operators", "revoke", "--username", "olivia", "--role", "support")):
        args = parse(*argv)
        recording = operator_audit.start(args, "operators")
        assert recording is not None
        recording.finish(act(args, io.StringIO()))
    granted, revoked = events(current_trail())
    olivia = {"type": "user", "id": "usr_demoolivia000000000000"}
    assert [(e["action"], e["tenant"], e["target"], e["outcome"]) for e in (granted, revoked)] == [
        ("operator.role_granted", "operators", olivia, "success"),
        ("operator.role_revoked", "operators", olivia, "success")]
    assert granted["details"] == {"username": "olivia", "email": "olivia@operators.example",
                                  "command": "authgate operators grant", "operator": "olivia", "role": "support",
                                  "tenants": ["acme"]}


def test_unlinking_an_identity_is_recorded_as_identity_unlinked(demo: Demo) -> None:
    """`authgate users unlink` changes the account (a sign-in of the identity finds nobody): recorded, as the
    console's Unlink is."""
    recording = operator_audit.start(parse("users", "unlink", "--tenant", "demo", "--username", "bob", "--idp",
                                           "idp-a"), "users")
    assert recording is not None
    assert (recording.action, recording.tenant, recording.target_id) == (
        "identity.unlinked", "demo", "usr_demobob000000000000000")
