"""`make deploy STAGE=...` as far as it goes without an AWS account: the exact commands it runs,
samconfig.toml as SAM CLI's own parser reads it (no prompt anywhere), and the pre-flight and
post-deploy checks against moto's AWS."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SAM_PYTHON = REPO_ROOT / ".venv-sam" / "bin" / "python"


def make(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    # The suite's own AWS_REGION (tests/conftest.py) is not the caller's: a deploy would pass it on.
    env = env or {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS", "AWS_REGION"))}
    return subprocess.run(["make", "--no-print-directory", *args], cwd=REPO_ROOT, env=env, capture_output=True,
                          text=True, timeout=60, check=False)


@pytest.mark.parametrize("stage", ["staging", "production"])
def test_make_deploy_runs_preflight_build_sam_deploy_and_the_next_steps(stage: str) -> None:
    done = make("deploy", f"STAGE={stage}", "DRY_RUN=1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        ".venv/bin/python scripts/deploy_check.py preflight",
        "make build",
        f".venv-sam/bin/sam deploy --config-env {stage} --no-confirm-changeset --no-fail-on-empty-changeset",
        f".venv/bin/python scripts/deploy_check.py outputs --config-env {stage}",
    ]


def test_make_deploy_passes_a_region_and_refuses_an_unknown_stage() -> None:
    done = make("deploy", "STAGE=staging", "REGION=eu-west-1", "DRY_RUN=1")
    assert ".venv-sam/bin/sam deploy --config-env staging --no-confirm-changeset --no-fail-on-empty-changeset " \
           "--region eu-west-1" in done.stdout.splitlines()
    # AWS_REGION, which SAM CLI does not read, is passed on; REGION= still wins.
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    for region, extra in (("eu-central-1", []), ("eu-west-1", ["REGION=eu-west-1"])):
        done = make("deploy", "STAGE=staging", "DRY_RUN=1", *extra, env={**environment, "AWS_REGION": "eu-central-1"})
        assert done.stdout.splitlines()[0] == f".venv/bin/python scripts/deploy_check.py preflight --region {region}"
    bad = make("deploy", "STAGE=prod", "DRY_RUN=1")
    assert bad.returncode == 2 and bad.stdout == ""
    assert "make deploy: set STAGE=staging or STAGE=production (samconfig.toml's environments)" in bad.stderr
    assert make("deploy", "DRY_RUN=1").returncode == 2


def test_make_deploy_without_aws_stops_at_the_preflight_before_building(tmp_path: Path) -> None:
    """Run for real (the environments are not rebuilt: -o), on a machine where AWS was never set up:
    one line saying what to set, and nothing built or deployed (make would echo `make build`)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS", "AWS_", "AUTHGATE_"))}
    env["HOME"] = str(tmp_path)
    done = make("-o", ".venv/.installed-local", "-o", ".venv-sam/.installed", "deploy", "STAGE=staging", env=env)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    lines = done.stderr.splitlines()
    assert lines[0] == "deploy: no AWS region: set AWS_REGION (or a profile's region), or pass REGION=... to make"
    assert len(lines) == 2 and lines[1].startswith("make: *** [Makefile:") and lines[1].endswith("] Error 1")


def test_teardown_deletes_the_stack_without_prompts_and_account_setup_deploys_its_own_stack() -> None:
    assert make("teardown", "STAGE=production", "DRY_RUN=1").stdout.splitlines() == [
        ".venv-sam/bin/sam delete --config-env production --no-prompts"]
    assert make("account-setup", "DRY_RUN=1").stdout.splitlines() == [
        (".venv-sam/bin/sam deploy --template-file deploy/apigateway-account.yaml --stack-name authgate-account "
        "--capabilities CAPABILITY_IAM --no-confirm-changeset --no-fail-on-empty-changeset")]


def sam_config(command: str, env: str) -> dict[str, Any]:
    """samconfig.toml as SAM CLI reads it (its own parser, in .venv-sam)."""
    assert SAM_PYTHON.exists(), "run `make sam-venv`"
    code = ("import json, sys; from samcli.lib.config.samconfig import SamConfig; "
            f"print(json.dumps(SamConfig(sys.argv[1]).get_all([{command!r}], 'parameters', env={env!r})))")
    done = subprocess.run([str(SAM_PYTHON), "-c", code, str(REPO_ROOT)], capture_output=True, text=True,
                          timeout=60, check=True, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    return json.loads(done.stdout)


@pytest.mark.parametrize("stage", ["staging", "production"])
def test_samconfig_deploys_each_stage_as_its_own_stack_with_no_prompt(stage: str) -> None:
    deploy = sam_config("deploy", stage)
    assert deploy == {
        "stack_name": f"authgate-{stage}", "resolve_s3": True, "s3_prefix": f"authgate-{stage}",
        "capabilities": "CAPABILITY_IAM", "confirm_changeset": False, "fail_on_empty_changeset": False,
        "parameter_overrides": f"Stage={stage}",
        "tags": f'authgate-stack="authgate-{stage}" authgate-stage="{stage}"',
    }
    assert "guided" not in deploy
    assert sam_config("delete", stage) == {"stack_name": f"authgate-{stage}", "no_prompts": True}


# ------------------------------------------------------------------ pre-flight and outputs, on moto


@pytest.fixture
def moto_aws(monkeypatch: pytest.MonkeyPatch) -> Any:
    from moto import mock_aws

    with mock_aws():
        import boto3

        yield boto3.session.Session(region_name="us-east-1")


def test_preflight_names_what_stops_a_deploy(moto_aws: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import boto3

    from scripts.deploy_check import preflight

    with monkeypatch.context() as no_region:
        for name in ("AWS_DEFAULT_REGION", "AWS_REGION", "AWS_PROFILE", "AWS_CONFIG_FILE"):
            no_region.delenv(name, raising=False)
        no_region.setenv("AWS_CONFIG_FILE", "/nonexistent")
        assert preflight(None, boto3.session.Session()) == [
            "no AWS region: set AWS_REGION (or a profile's region), or pass REGION=... to make"]
    problems = preflight("us-east-1", moto_aws)
    assert problems == [("API Gateway in us-east-1 (account 123456789012) has no CloudWatch logging role, which the "
                        "stage's access log needs: run `make account-setup` once")]
    moto_aws.client("apigateway").update_account(patchOperations=[
        {"op": "replace", "path": "/cloudwatchRoleArn", "value": "arn:aws:iam::123456789012:role/apigw-logs"}])
    assert preflight("us-east-1", moto_aws) == []


def test_outputs_print_the_issuer_and_the_next_commands(moto_aws: Any) -> None:
    from scripts.deploy_check import outputs

    moto_aws.client("cloudformation").create_stack(StackName="authgate-staging", TemplateBody=json.dumps({
        "Resources": {"T": {"Type": "AWS::SNS::Topic"}},
        "Outputs": {"Issuer": {"Value": "https://abc.execute-api.us-east-1.amazonaws.com/staging"},
                    "ApiUrl": {"Value": "https://abc.execute-api.us-east-1.amazonaws.com/staging"},
                    "DefaultApiKeyId": {"Value": "k123"}}}))
    text = outputs("staging", None, moto_aws)
    assert text.splitlines()[1:] == [
        "  issuer:      https://abc.execute-api.us-east-1.amazonaws.com/staging",
        "  API URL:     https://abc.execute-api.us-east-1.amazonaws.com/staging",
        "  API key id:  k123 (value: aws apigateway get-api-key --include-value --api-key k123)",
        "next:",
        "  .venv/bin/authgate tenants create ACME --currency usd --stack-name authgate-staging",
        ("  .venv/bin/authgate clients create --tenant ACME --grant client_credentials --scope charges:write "
        "--stack-name authgate-staging"),
        "  .venv/bin/authgate users create --tenant ACME --username alice --stack-name authgate-staging",
        '  .venv/bin/authgate check "https://abc.execute-api.us-east-1.amazonaws.com/staging"',
        "  (docs/deploy.md, 3: a first sign-in)",
    ]


def test_outputs_name_the_dns_record_a_custom_domain_needs(moto_aws: Any) -> None:
    from scripts.deploy_check import outputs

    moto_aws.client("cloudformation").create_stack(StackName="authgate-production", TemplateBody=json.dumps({
        "Resources": {"T": {"Type": "AWS::SNS::Topic"}},
        "Outputs": {"Issuer": {"Value": "https://auth.example.com"},
                    "ApiUrl": {"Value": "https://abc.execute-api.us-east-1.amazonaws.com/production"},
                    "DomainNameTarget": {"Value": "d-abc123.execute-api.us-east-1.amazonaws.com"},
                    "DomainNameHostedZoneId": {"Value": "Z1UJRXOUMOOFQ8"},
                    "DefaultApiKeyId": {"Value": "k123"}}}))
    text = outputs("production", None, moto_aws)
    assert text.splitlines()[1:4] == [
        "  issuer:      https://auth.example.com",
        ("  DNS:         auth.example.com CNAME d-abc123.execute-api.us-east-1.amazonaws.com (or a Route 53 alias, "
         "hosted zone Z1UJRXOUMOOFQ8)"),
        "  API URL:     https://abc.execute-api.us-east-1.amazonaws.com/production",
    ]
    assert '  .venv/bin/authgate check "https://auth.example.com"' in text.splitlines()
