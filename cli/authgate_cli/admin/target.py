"""Which stack an admin command acts on: a running local stack, or a deployed CloudFormation stack.

Locally that is the only `authgate serve` running, or the one `--url` (or $AUTHGATE_URL) names
when several are; a deployed stack is `--stack-name NAME [--region R]`. Every command says on
stderr which stack it acts on before it acts. Either way the result is the environment the stack's functions see (table names, stage,
issuer, AWS endpoint), applied to this process, so admin code uses the same stores and
settings as the handlers do.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from authgate_cli.local import stack, template

# Set by one kind of target and never meaningful for the other; cleared before applying.
_TARGET_VARS = ("AUTHGATE_AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB",
                "AUTHGATE_SESSION_SECRET")


class TargetError(Exception):
    """No stack to act on (none running locally, or the named stack is missing or incomplete)."""


URL_ENV = "AUTHGATE_URL"


@dataclass(frozen=True)
class Target:
    name: str          # "local" or the CloudFormation stack name
    stage: str
    issuer: str
    env: dict[str, str]

    def describe(self) -> str:
        """What an admin command names before it acts: which stack, at which URL."""
        if self.name == "local":
            return f"local stack {self.issuer} (stage {self.stage})"
        at = f" at {self.issuer}" if self.issuer else ""
        return f"stack {self.name}{at} (stage {self.stage})"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "target stack (default: the running `authgate serve`, when exactly one is running)")
    group.add_argument("--url", metavar="URL", default=os.environ.get(URL_ENV) or None,
                       help=f"act on the local stack serving this base URL, e.g. http://127.0.0.1:4000 "
                            f"(default: ${URL_ENV})")
    group.add_argument("--stack-name", metavar="NAME", help="act on this deployed CloudFormation stack")
    group.add_argument("--region", metavar="REGION", help="AWS region of --stack-name")


def use(args: argparse.Namespace) -> Target:
    """Point this process at the chosen stack (environment + fresh caches) and describe it."""
    stack_name = getattr(args, "stack_name", None)
    region = getattr(args, "region", None)
    url = getattr(args, "url", None)
    if stack_name and url:
        raise TargetError("--url names a local stack and --stack-name a deployed one: give one of them")
    target = deployed(stack_name, region) if stack_name else local(url)
    # A deployed stack is reached the way the caller's AWS configuration says, endpoint overrides
    # included (AWS_ENDPOINT_URL*: e.g. an emulated account); only a local stack manages them.
    kept = {k: v for k, v in os.environ.items() if k.startswith("AWS_ENDPOINT_URL")} if stack_name else {}
    for name in _TARGET_VARS:
        os.environ.pop(name, None)
    stack.apply(target.env, fake_credentials=target.name == "local")
    os.environ.update(kept)
    return target


def run(args: argparse.Namespace, command: str, action: Callable[[], int]) -> int:
    """`use` the chosen stack, name it on stderr, then run `action`; exit status 2, after one line, when there
    is none or AWS refuses a call."""
    try:
        chosen = use(args)
    except TargetError as exc:
        sys.stderr.write(f"authgate {command}: {exc}\n")
        return 2
    sys.stderr.write(f"target: {chosen.describe()}\n")
    from botocore.exceptions import BotoCoreError, ClientError

    from authgate_cli.admin import operator_audit

    recording = None
    try:
        # A command that changes something is recorded in the audit trail, whatever its outcome.
        recording = operator_audit.start(args, command)
        status = action()
    except (BotoCoreError, ClientError) as exc:
        # Credentials that describe the stack may still lack a table, or expire mid-command.
        from authgate_cli.admin.aws_access import explain

        sys.stderr.write(f"authgate {command}: {explain(exc)}\n")
        status, error = 2, (exc.response.get("Error", {}).get("Code", "") if isinstance(exc, ClientError) else "")
    else:
        error = ""
    if recording is not None:
        try:
            recording.finish(status, error)
        except operator_audit.NotRecorded as problem:
            return operator_audit.report(command, problem)
    return status


def local(url: str | None = None) -> Target:
    """The running local stack at `url`, or the only one running."""
    def stale(base_url: str, why: str) -> None:
        sys.stderr.write(f"removed the record of the local stack at {base_url}: {why}\n")

    try:
        state = stack.find(url, on_stale=stale)
    except stack.NoStack as exc:
        raise TargetError(str(exc)) from None
    env = {str(k): str(v) for k, v in (state.get("env") or {}).items()}
    return Target("local", env.get("AUTHGATE_STAGE", "local"), str(state.get("issuer", "")), env)


def deployed(stack_name: str, region: str | None = None, cloudformation: Any = None) -> Target:
    """The environment of a deployed stack, from its Outputs and Parameters (see template.yaml).

    Without a region, credentials or a reachable AWS, and for a stack that is not there, a
    TargetError of one line says what to set (authgate_cli.admin.aws_access, as `make deploy`)."""
    from botocore.exceptions import BotoCoreError, ClientError

    from authgate_cli.admin import aws_access

    try:
        if cloudformation is None:
            from botocore.config import Config

            aws = aws_access.session(region)
            region = aws_access.require(aws)
            # An interactive command: a few seconds to say AWS cannot be reached, not minutes.
            cloudformation = aws.client("cloudformation", config=Config(
                connect_timeout=5, read_timeout=20, retries={"max_attempts": 2, "mode": "standard"}))
        described = cloudformation.describe_stacks(StackName=stack_name)["Stacks"][0]
    except aws_access.AwsUnavailable as exc:
        raise TargetError(str(exc)) from None
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") == "ValidationError" and "does not exist" in str(exc):
            where = f" in {region}" if region else ""
            raise TargetError(f"no stack {stack_name!r}{where}: check --stack-name and --region "
                              "(aws cloudformation describe-stacks lists them)") from None
        raise TargetError(aws_access.explain(exc)) from None
    except BotoCoreError as exc:
        raise TargetError(aws_access.explain(exc)) from None
    outputs = {o["OutputKey"]: o["OutputValue"] for o in described.get("Outputs", [])}
    params = {p["ParameterKey"]: p.get("ResolvedValue") or p.get("ParameterValue", "")
              for p in described.get("Parameters", [])}
    env = environment_from(outputs, params)
    if region:
        # The stores' clients read the region from the environment, not from a profile.
        env["AWS_REGION"] = env["AWS_DEFAULT_REGION"] = region
    return Target(stack_name, env.get("AUTHGATE_STAGE", ""), env.get("AUTHGATE_ISSUER", ""), env)


def environment_from(outputs: Mapping[str, str], params: Mapping[str, str]) -> dict[str, str]:
    """Resolve the template's Globals environment: `!Ref Parameter` from the stack's parameters,
    `!Ref <Table>` from the `<Table>Name` output, the session secret and issuer from theirs."""
    variables = template.load()["Globals"]["Function"]["Environment"]["Variables"]
    tables = template.resources("AWS::DynamoDB::Table")
    env: dict[str, str] = {}
    missing = []
    for name, value in variables.items():
        if isinstance(value, str):
            env[name] = value
        elif isinstance(value, dict) and "Ref" in value:
            ref = value["Ref"]
            if ref in params:
                env[name] = params[ref]
            elif f"{ref}Name" in outputs:
                env[name] = outputs[f"{ref}Name"]
            elif f"{ref}Arn" in outputs:
                env[name] = outputs[f"{ref}Arn"]
            elif f"{ref}Url" in outputs:
                env[name] = outputs[f"{ref}Url"]
            elif ref in tables:
                missing.append(f"{ref}Name")
    if "Issuer" in outputs:
        env["AUTHGATE_ISSUER"] = outputs["Issuer"]
    if "AuditMacKeyArn" in outputs:
        # The key `authgate events verify` trusts (the audit function's and the console's AUTHGATE_AUDIT_MAC_KEY).
        env["AUTHGATE_AUDIT_MAC_KEY"] = outputs["AuditMacKeyArn"]
    if "RotateKeysFunctionName" in outputs:
        # `authgate keys rotate` has the stack's rotation function run the step (authgate_cli.admin.keys).
        env["AUTHGATE_ROTATE_KEYS_FUNCTION"] = outputs["RotateKeysFunctionName"]
    if missing:
        outputs = "output" if len(missing) == 1 else "outputs"
        raise TargetError(f"the stack has no {outputs} {', '.join(missing)}; deploy the current template.yaml")
    return env
