"""admin.aws_access.explain: AWS's answers a machine offline cannot provoke, worded as one line.

The ones it can provoke (no region, no credentials, an unknown or SSO profile, expired process
credentials, an endpoint that does not answer, refused credentials, a missing stack or table) are
run end to end in tests/deploy/test_admin_without_aws.py."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from authgate_cli.admin.aws_access import explain


def answered(code: str, message: str, operation: str = "DescribeStacks") -> ClientError:
    """The exception botocore raises for an AWS error response (its own class, as parsed from the wire)."""
    return ClientError({"Error": {"Code": code, "Message": message}}, operation)


@pytest.mark.parametrize(("code", "line"), [
    ("ExpiredToken", ("the AWS credentials have expired (ExpiredToken): renew them (aws sso login, or fresh "
                     "temporary credentials) and try again")),
    ("RequestExpired", ("the AWS credentials have expired (RequestExpired): renew them (aws sso login, or fresh "
                       "temporary credentials) and try again")),
    ("AccessDenied", ("AWS denied DescribeStacks to these credentials (AccessDenied): use an identity allowed to "
                     "administer the stack (docs/deploy.md, What you need)")),
    ("SignatureDoesNotMatch", ("AWS refused the credentials (SignatureDoesNotMatch: the message): configure working "
                              "ones (aws configure) or set AWS_PROFILE")),
    ("Throttling", "AWS answered DescribeStacks with Throttling: the message"),
])
def test_each_kind_of_refusal_says_what_to_do(code: str, line: str) -> None:
    assert explain(answered(code, "the message")) == line


def test_a_message_of_several_lines_stays_one_line() -> None:
    line = explain(answered("ValidationError", "first\nsecond\r\n\tthird"))
    assert line == "AWS answered DescribeStacks with ValidationError: first second third"
