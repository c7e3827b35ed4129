"""A first-time user's `authgate ... --stack-name` before AWS is set up: every admin command answers
one line on stderr saying what to set, exit status 2, never a traceback (authgate_cli.admin.aws_access,
which `make deploy`'s preflight uses too).

Each command runs as the installed `authgate`, in an environment scrubbed of every AWS variable
with HOME pointed at an empty directory (no ~/.aws). What cannot be met offline is served by moto:
an emulated account without the stack, and one that checks credentials (INITIAL_NO_AUTH_ACTION_COUNT=0).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.admin_parser import admin_commands, command_line

REPO_ROOT = Path(__file__).resolve().parents[2]
AUTHGATE = Path(sys.executable).with_name("authgate")
STACK = "authgate-staging"

# A valid value for each required argument, by its dest (tests/admin_parser.py adds what a leaf's own checks need).
VALUES = {"client_id": "acme-app", "tenant_id": "acme", "resource": "https://mcp.example.com/mcp", "tenant": "acme",
          "username": "bob", "scopes": "mcp:read", "issuer": "https://idp.example", "kid": "20260101T000000Z-0a1b2c3d",
          "idp": "https://idp.example", "operator": "olivia", "role": "support",
          "fingerprint": ":".join(["AB"] * 32)}


def leaves() -> list[list[str]]:
    """Every admin subcommand as a command line that passes its own checks, from the parser itself."""
    return [command_line(noun, verb, VALUES) for noun, verb in admin_commands()]


def scrubbed(home: Path, **extra: str) -> dict[str, str]:
    """No AWS_* variable at all, HOME without ~/.aws: a machine where AWS was never configured."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("AWS_", "AUTHGATE_", "BOTO_", "PYTHONPATH", "VIRTUAL_ENV"))}
    env.update(HOME=str(home), **extra)
    return env


def admin(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(AUTHGATE), *argv, "--stack-name", STACK], env=env, input="a-password-1\n",
                          capture_output=True, text=True, timeout=60, check=False, cwd=REPO_ROOT)


def one_line(done: subprocess.CompletedProcess[str], group: str, line: str) -> None:
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"authgate {group}: {line}\n"), done.args


def test_the_loop_reaches_every_admin_subcommand() -> None:
    names = {" ".join(argv[:2]) for argv in leaves()}
    assert {"clients create", "clients update", "clients rotate-secret", "clients list", "users create",
            "users list", "users show", "users update", "users disable", "users enable", "users delete",
            "users reset-password", "users unlock",
            "keys rotate", "keys list", "tenants create", "tenants list", "tenants show", "resources create",
            "resources list", "resources show", "resources update", "resources delete", "idps create", "idps list",
            "idps show", "idps update", "idps delete", "operators grant", "operators revoke", "operators list",
            "operators show"} <= names


@pytest.mark.parametrize(("case", "extra", "line"), [
    ("no-region", {}, "no AWS region: set AWS_REGION (or a profile's region), or pass --region REGION"),
    # The instance metadata service is turned off so that a CI machine on EC2 has no credentials either.
    ("no-credentials", {"AWS_REGION": "eu-west-1", "AWS_EC2_METADATA_DISABLED": "true"},
     ("no AWS credentials: configure a profile (aws configure) or set AWS_PROFILE "
     "(or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)")),
], ids=["no-region", "no-credentials"])
def test_every_admin_command_says_what_to_set_in_one_line(tmp_path: Path, case: str, extra: dict[str, str],
                                                           line: str) -> None:
    env = scrubbed(tmp_path, **extra)
    with ThreadPoolExecutor(4) as pool:
        runs = list(pool.map(lambda argv: (argv, admin(argv, env)), leaves()))
    for argv, done in runs:
        one_line(done, argv[0], line)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


KEYS = {"AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE", "AWS_SECRET_ACCESS_KEY": "not-a-real-secret",
        "AWS_REGION": "eu-west-1"}


def test_an_endpoint_that_does_not_answer_is_one_line(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    started = time.monotonic()
    done = admin(["tenants", "list"], scrubbed(tmp_path, **KEYS, AWS_ENDPOINT_URL=url))
    one_line(done, "tenants", f"cannot reach AWS at {url}/: check the network, the region and AWS_ENDPOINT_URL")
    assert time.monotonic() - started < 30


@pytest.fixture(scope="module")
def moto_account() -> Iterator[str]:
    """An emulated account (no credential checks) holding one stack whose tables were never created."""
    from authgate_cli.local import embedded

    aws = embedded.start()
    try:
        import boto3

        from authgate_cli.local.template import resources

        outputs = {f"{name}Name": {"Value": f"authgate-broken-{name}-gone"}
                   for name in resources("AWS::DynamoDB::Table")}
        template = {"Parameters": {"Stage": {"Type": "String"}}, "Resources": {"Topic": {"Type": "AWS::SNS::Topic"}},
                    "Outputs": {"Issuer": {"Value": "https://auth.example.com"}, **outputs}}
        boto3.client("cloudformation", region_name="eu-west-1", endpoint_url=aws.endpoint, aws_access_key_id="x",
                     aws_secret_access_key="x").create_stack(
            StackName="authgate-broken", TemplateBody=json.dumps(template),
            Parameters=[{"ParameterKey": "Stage", "ParameterValue": "staging"}])
        yield aws.endpoint
    finally:
        aws.stop()


def test_a_stack_that_is_not_there_is_one_line(tmp_path: Path, moto_account: str) -> None:
    done = admin(["clients", "list"], scrubbed(tmp_path, **KEYS, AWS_ENDPOINT_URL=moto_account))
    one_line(done, "clients", f"no stack '{STACK}' in eu-west-1: check --stack-name and --region "
                              "(aws cloudformation describe-stacks lists them)")


def test_a_refusal_after_the_stack_is_found_is_one_line(tmp_path: Path, moto_account: str) -> None:
    """The stack is there; its table is not (or the identity may not read it): still one line, no traceback."""
    done = subprocess.run([str(AUTHGATE), "tenants", "list", "--stack-name", "authgate-broken"], cwd=REPO_ROOT,
                          env=scrubbed(tmp_path, **KEYS, AWS_ENDPOINT_URL=moto_account), capture_output=True,
                          text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr.splitlines() == [
        "target: stack authgate-broken at https://auth.example.com (stage staging)",
        "authgate tenants: AWS answered Scan with ResourceNotFoundException: Requested resource not found"]


@pytest.fixture(scope="module")
def checking_account(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """moto in server mode checking every request's credentials, as AWS does."""
    port = closed_port()
    log = tmp_path_factory.mktemp("moto-auth") / "moto.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "moto.server", "-p", str(port)], stdout=out,
                                   stderr=subprocess.STDOUT, env={**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": "0"})
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_credentials_aws_refuses_are_one_line(tmp_path: Path, checking_account: str) -> None:
    done = admin(["keys", "list"], scrubbed(tmp_path, **KEYS, AWS_ENDPOINT_URL=checking_account))
    one_line(done, "keys", "AWS refused the credentials (InvalidClientTokenId: The security token included in the "
                           "request is invalid.): configure working ones (aws configure) or set AWS_PROFILE")


def aws_config(home: Path, text: str) -> Path:
    (home / ".aws").mkdir()
    (home / ".aws" / "config").write_text(text)
    return home


EXPIRED = '{"Version": 1, "AccessKeyId": "AKIAIOSFODNN7EXAMPLE", "SecretAccessKey": "x", "SessionToken": "t", ' \
          '"Expiration": "2020-01-01T00:00:00Z"}'


@pytest.mark.parametrize(("profile", "line"), [
    ("sso", "the AWS SSO session has expired or was never started: run `aws sso login --profile sso`"),
    ("expired", ("the AWS credentials have expired: renew them (aws sso login, or fresh temporary credentials) and "
                "try again")),
    ("nope", ("the AWS profile 'nope' is not configured: set AWS_PROFILE to one that is (aws configure "
             "list-profiles), or create it (aws configure --profile nope)")),
], ids=["sso-not-logged-in", "expired", "unknown-profile"])
def test_a_profile_whose_credentials_cannot_be_had_is_one_line(tmp_path: Path, profile: str, line: str) -> None:
    """An SSO profile never logged in, a credential process handing out expired keys, a profile that is not
    there: what a laptop meets, answered before any request leaves it."""
    process = tmp_path / "expired-credentials"
    process.write_text(f"#!/bin/sh\necho '{EXPIRED}'\n")
    process.chmod(0o755)
    home = aws_config(tmp_path, "[profile sso]\nsso_session = corp\nsso_account_id = 123456789012\n"
                                "sso_role_name = Admin\nregion = eu-west-1\n"
                                "[sso-session corp]\nsso_start_url = https://corp.awsapps.invalid/start\n"
                                "sso_region = eu-west-1\n"
                                f"[profile expired]\nregion = eu-west-1\ncredential_process = {process}\n")
    done = admin(["resources", "list"], scrubbed(home, AWS_PROFILE=profile))
    one_line(done, "resources", line)
