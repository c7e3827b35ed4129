"""admin.target: admin commands find a running local stack (by URL when several run), or a deployed stack by name."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from authgate_cli.admin import target
from authgate_cli.local import stack, template


@pytest.fixture
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("AUTHGATE_STATE_DIR", str(tmp_path))
    for name in ("AUTHGATE_AWS_ENDPOINT_URL", "AUTHGATE_STAGE", "AUTHGATE_ISSUER", "AWS_ENDPOINT_URL_DYNAMODB"):
        monkeypatch.delenv(name, raising=False)
    saved = dict(os.environ)
    yield tmp_path / "servers"
    os.environ.clear()
    os.environ.update(saved)
    stack.reset_caches()


def args(**kwargs: str) -> argparse.Namespace:
    return argparse.Namespace(stack_name=kwargs.get("stack_name"), region=kwargs.get("region"),
                              url=kwargs.get("url"))


def record(port: int, pid: int | None = None) -> Path:
    base = f"http://127.0.0.1:{port}"
    env = stack.environment(issuer=base, aws_endpoint=f"http://127.0.0.1:{port + 1}")
    return stack.write_state({"pid": pid or os.getpid(), "base_url": base, "issuer": base,
                              "env": {k: v for k, v in env.items() if k != "AUTHGATE_SESSION_SECRET"}})


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    return int(done.stdout)


def test_no_running_local_stack_is_a_clear_error(state_dir: Path) -> None:
    with pytest.raises(target.TargetError, match="no local stack is running"):
        target.use(args())


def test_stale_record_of_a_dead_process_is_removed_and_reported(state_dir: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = record(3999, pid=dead_pid())
    with pytest.raises(target.TargetError, match="no local stack is running"):
        target.use(args())
    assert not path.exists()
    assert "removed the record of the local stack at http://127.0.0.1:3999: process" in capsys.readouterr().err


def test_a_reused_pid_is_not_mistaken_for_the_server(state_dir: Path) -> None:
    """The record keeps the process start time: the same pid with another start is stale."""
    path = record(3999)
    state = json.loads(path.read_text())
    state["process_started"] = (state["process_started"] or 0) + 1
    path.write_text(json.dumps(state))
    if stack._process_started(os.getpid()) is None:
        pytest.skip("no /proc here: only liveness can be checked")
    with pytest.raises(target.TargetError):
        target.use(args())
    assert not path.exists()


def test_the_only_local_stack_is_used_and_its_environment_applied(state_dir: Path) -> None:
    path = record(3998)
    assert path == state_dir / "127.0.0.1_3998.json"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    chosen = target.use(args())
    assert (chosen.name, chosen.stage, chosen.issuer) == ("local", "local", "http://127.0.0.1:3998")
    assert chosen.describe() == "local stack http://127.0.0.1:3998 (stage local)"
    from authgate.settings import get_settings

    settings = get_settings()
    assert settings.aws_endpoint_url == "http://127.0.0.1:3999"
    assert settings.issuer == "http://127.0.0.1:3998"
    assert settings.tables.clients == "ClientsTable"
    stack.remove_state("http://127.0.0.1:3998", os.getpid())
    assert not path.exists()


def test_two_stacks_need_url_and_url_picks_one(state_dir: Path) -> None:
    record(4100)
    record(4200)
    with pytest.raises(target.TargetError, match=r"2 local stacks are running \(http://127.0.0.1:4100, "
                                                 r"http://127.0.0.1:4200\): choose one with --url"):
        target.use(args())
    assert target.use(args(url="http://127.0.0.1:4200/")).issuer == "http://127.0.0.1:4200"
    assert target.use(args(url="127.0.0.1:4100")).issuer == "http://127.0.0.1:4100"
    with pytest.raises(target.TargetError, match=r"no local stack is running at http://127.0.0.1:4300 "
                                                 r"\(running: http://127.0.0.1:4100, http://127.0.0.1:4200\)"):
        target.use(args(url="http://127.0.0.1:4300"))


@pytest.mark.parametrize("url", ["ftp://127.0.0.1:1", "http://127.0.0.1", "http://127.0.0.1:3000/oauth", "::"])
def test_a_url_that_is_not_a_base_url_is_a_clear_error(state_dir: Path, url: str) -> None:
    with pytest.raises(target.TargetError, match="--url must be the base URL of a local stack"):
        target.use(args(url=url))


def test_url_and_stack_name_together_is_a_clear_error(state_dir: Path) -> None:
    with pytest.raises(target.TargetError, match="give one of them"):
        target.use(args(url="http://127.0.0.1:4000", stack_name="authgate-staging"))


def test_removing_a_record_leaves_another_servers_record_alone(state_dir: Path) -> None:
    mine, theirs = record(4100), record(4200, pid=os.getppid())
    stack.remove_state("http://127.0.0.1:4200", os.getpid())  # not its owner: nothing happens
    assert theirs.exists()
    stack.remove_state("http://127.0.0.1:4100", os.getpid())
    assert not mine.exists() and theirs.exists()


@pytest.mark.slow
def test_deployed_stack_environment_comes_from_outputs_and_parameters(state_dir: Path) -> None:
    from moto import mock_aws

    tables = template.resources("AWS::DynamoDB::Table")
    outputs = {f"{name}Name": {"Value": f"authgate-staging-{name}-X1"} for name in tables}
    outputs["Issuer"] = {"Value": "https://auth.example.com"}
    outputs["SessionSecretArn"] = {"Value": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:s"}
    # Where admin commands queue back-channel logout tokens (authgate.deliveries).
    outputs["DeliveriesQueueUrl"] = {"Value": "https://sqs.eu-west-1.amazonaws.com/123456789012/q"}
    # The function `authgate keys rotate` invokes (authgate_cli.admin.keys).
    outputs["RotateKeysFunctionName"] = {"Value": "authgate-staging-RotateKeysFunction-X1"}
    cfn_template = {
        "Parameters": {"Stage": {"Type": "String"}, "SigningBackend": {"Type": "String", "Default": "kms"}},
        "Resources": {"Nothing": {"Type": "AWS::SNS::Topic"}},
        "Outputs": outputs,
    }
    with mock_aws():
        import boto3

        boto3.client("cloudformation", region_name="eu-west-1").create_stack(
            StackName="authgate-staging", TemplateBody=json.dumps(cfn_template),
            Parameters=[{"ParameterKey": "Stage", "ParameterValue": "staging"}])
        chosen = target.use(args(stack_name="authgate-staging", region="eu-west-1"))
    assert (chosen.name, chosen.stage, chosen.issuer) == ("authgate-staging", "staging", "https://auth.example.com")
    assert chosen.describe() == "stack authgate-staging at https://auth.example.com (stage staging)"
    assert chosen.env["AUTHGATE_CLIENTS_TABLE"] == "authgate-staging-ClientsTable-X1"
    assert chosen.env["AUTHGATE_SIGNING_BACKEND"] == "kms"
    assert chosen.env["AUTHGATE_SESSION_SECRET_ARN"].endswith(":secret:s")
    assert chosen.env["AUTHGATE_DELIVERIES_QUEUE"] == "https://sqs.eu-west-1.amazonaws.com/123456789012/q"
    assert chosen.env["AUTHGATE_ROTATE_KEYS_FUNCTION"] == "authgate-staging-RotateKeysFunction-X1"
    assert os.environ["AWS_REGION"] == "eu-west-1"
    assert "AUTHGATE_AWS_ENDPOINT_URL" not in os.environ


@pytest.mark.slow
def test_unknown_deployed_stack_is_a_clear_error(state_dir: Path) -> None:
    from moto import mock_aws

    with mock_aws(), pytest.raises(target.TargetError, match="stack 'nope'"):
        target.use(args(stack_name="nope", region="us-east-1"))


def test_a_stack_without_the_table_outputs_names_them_in_words_that_agree() -> None:
    tables = sorted(template.resources("AWS::DynamoDB::Table"))
    outputs = {f"{name}Name": f"authgate-staging-{name}-X1" for name in tables}
    with pytest.raises(target.TargetError) as one:
        target.environment_from({k: v for k, v in outputs.items() if k != f"{tables[0]}Name"}, {})
    assert str(one.value) == f"the stack has no output {tables[0]}Name; deploy the current template.yaml"
    with pytest.raises(target.TargetError) as two:
        target.environment_from({k: v for k, v in outputs.items() if k not in (f"{t}Name" for t in tables[:2])}, {})
    said, _, rest = str(two.value).partition("; ")
    assert said.startswith("the stack has no outputs ") and rest == "deploy the current template.yaml"
    assert sorted(said.removeprefix("the stack has no outputs ").split(", ")) == [f"{t}Name" for t in tables[:2]]
