"""admin.target: admin commands find the running local stack, or a deployed stack by name."""

from __future__ import annotations

import argparse
import json
import os
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
    yield tmp_path
    os.environ.clear()
    os.environ.update(saved)
    stack.reset_caches()


def args(**kwargs: str) -> argparse.Namespace:
    return argparse.Namespace(stack_name=kwargs.get("stack_name"), region=kwargs.get("region"))


def test_no_running_local_stack_is_a_clear_error(state_dir: Path) -> None:
    with pytest.raises(target.TargetError, match="no local stack is running"):
        target.use(args())


def test_stale_state_of_a_dead_process_is_ignored(state_dir: Path) -> None:
    (state_dir / "local.json").write_text(json.dumps({"pid": 2**22 + 12345, "env": {}}))
    with pytest.raises(target.TargetError):
        target.use(args())


def test_local_stack_environment_is_applied(state_dir: Path) -> None:
    env = stack.environment(issuer="http://127.0.0.1:3999", aws_endpoint="http://127.0.0.1:45678")
    stack.write_state({"pid": os.getpid(), "issuer": "http://127.0.0.1:3999",
                       "env": {k: v for k, v in env.items() if k != "AUTHGATE_SESSION_SECRET"}})
    assert oct((state_dir / "local.json").stat().st_mode & 0o777) == "0o600"
    chosen = target.use(args())
    assert (chosen.name, chosen.stage, chosen.issuer) == ("local", "local", "http://127.0.0.1:3999")
    from authgate.settings import get_settings

    settings = get_settings()
    assert settings.aws_endpoint_url == "http://127.0.0.1:45678"
    assert settings.issuer == "http://127.0.0.1:3999"
    assert settings.tables.clients == "ClientsTable"
    stack.remove_state(os.getpid())
    assert not (state_dir / "local.json").exists()


def test_deployed_stack_environment_comes_from_outputs_and_parameters(state_dir: Path) -> None:
    from moto import mock_aws

    tables = template.resources("AWS::DynamoDB::Table")
    outputs = {f"{name}Name": {"Value": f"authgate-staging-{name}-X1"} for name in tables}
    outputs["Issuer"] = {"Value": "https://auth.example.com"}
    outputs["SessionSecretArn"] = {"Value": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:s"}
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
    assert chosen.env["AUTHGATE_CLIENTS_TABLE"] == "authgate-staging-ClientsTable-X1"
    assert chosen.env["AUTHGATE_SIGNING_BACKEND"] == "kms"
    assert chosen.env["AUTHGATE_SESSION_SECRET_ARN"].endswith(":secret:s")
    assert os.environ["AWS_REGION"] == "eu-west-1"
    assert "AUTHGATE_AWS_ENDPOINT_URL" not in os.environ


def test_unknown_deployed_stack_is_a_clear_error(state_dir: Path) -> None:
    from moto import mock_aws

    with mock_aws(), pytest.raises(target.TargetError, match="stack 'nope'"):
        target.use(args(stack_name="nope", region="us-east-1"))
