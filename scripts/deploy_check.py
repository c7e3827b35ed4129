"""Before and after `make deploy` (docs/deploy.md): what the deploy needs, and what to do next.

    deploy_check.py preflight [--region R]        credentials, a region, API Gateway's logging role
    deploy_check.py outputs --config-env ENV       the deployed stage's issuer, API URL, API key id

Each problem is one line on stderr and exit status 1; nothing here changes the account.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path
from typing import Any

SAMCONFIG = Path(__file__).resolve().parents[1] / "samconfig.toml"


def _session(region: str | None) -> Any:
    from authgate_cli.admin import aws_access

    return aws_access.session(region)


def preflight(region: str | None, session: Any = None) -> list[str]:
    """What stops a deploy before it starts: empty list when nothing does.

    The region and credentials are judged, and every AWS failure worded, as the admin commands
    do (authgate_cli.admin.aws_access)."""
    from botocore.exceptions import BotoCoreError, ClientError

    from authgate_cli.admin import aws_access

    try:
        session = session or _session(region)
        where = aws_access.require(session, aws_access.MAKE_REGION)
        identity = session.client("sts").get_caller_identity()
        account = session.client("apigateway").get_account()
    except aws_access.AwsUnavailable as exc:
        return [str(exc)]
    except (ClientError, BotoCoreError) as exc:
        return [aws_access.explain(exc)]
    if not account.get("cloudwatchRoleArn"):
        return [(f"API Gateway in {where} (account {identity['Account']}) has no CloudWatch "
                "logging role, which the stage's access log needs: run `make account-setup` once")]
    return []


def stack_name(config_env: str, path: Path = SAMCONFIG) -> str:
    config = tomllib.loads(path.read_text(encoding="utf-8"))
    try:
        return str(config[config_env]["deploy"]["parameters"]["stack_name"])
    except KeyError:
        raise SystemExit(f"deploy_check: samconfig.toml has no [{config_env}.deploy.parameters] stack_name") from None


def outputs(config_env: str, region: str | None, session: Any = None) -> str:
    """The next steps of docs/deploy.md with the deployed stage's own values."""
    session = session or _session(region)
    name = stack_name(config_env)
    stack = session.client("cloudformation").describe_stacks(StackName=name)["Stacks"][0]
    out = {o["OutputKey"]: o["OutputValue"] for o in stack.get("Outputs", [])}
    where = f" --region {session.region_name}" if region else ""
    dns = []
    if "DomainNameTarget" in out:  # DomainName/CertificateArn: the issuer's host needs its DNS record
        host = out.get("Issuer", "").removeprefix("https://")
        dns = [(f"  DNS:         {host} CNAME {out['DomainNameTarget']} (or a Route 53 alias, hosted zone "
                f"{out.get('DomainNameHostedZoneId', '?')})")]
    return "\n".join([
        f"stack {name}: {stack['StackStatus']}",
        f"  issuer:      {out.get('Issuer', '?')}",
        *dns,
        f"  API URL:     {out.get('ApiUrl', '?')}",
        (f"  API key id:  {out.get('DefaultApiKeyId', '?')} (value: aws apigateway get-api-key --include-value "
        f"--api-key {out.get('DefaultApiKeyId', 'ID')}{where})"),
        "next:",
        f"  .venv/bin/authgate tenants create ACME --currency usd --stack-name {name}{where}",
        (f"  .venv/bin/authgate clients create --tenant ACME --grant client_credentials --scope charges:write "
        f"--stack-name {name}{where}"),
        f"  .venv/bin/authgate users create --tenant ACME --username alice --stack-name {name}{where}",
        f"  .venv/bin/authgate check \"{out.get('Issuer', '$ISSUER')}\"",
        "  (docs/deploy.md, 3: a first sign-in)",
    ]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="deploy_check.py", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    pre = sub.add_parser("preflight")
    pre.add_argument("--region")
    post = sub.add_parser("outputs")
    post.add_argument("--config-env", required=True, choices=("staging", "production"))
    post.add_argument("--region")
    args = parser.parse_args(argv)
    if args.command == "preflight":
        problems = preflight(args.region)
        for problem in problems:
            sys.stderr.write(f"deploy: {problem}\n")
        return 1 if problems else 0
    sys.stdout.write(outputs(args.config_env, args.region))
    return 0


if __name__ == "__main__":
    sys.exit(main())
