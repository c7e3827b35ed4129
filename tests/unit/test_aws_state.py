"""tests/aws_state.py: the tables each test's moto starts with are the ones DynamoDB's CreateTable makes."""

from __future__ import annotations

from typing import Any

from tests import aws_state

# What differs between two creations of the same table: when, and its generated id.
VOLATILE = ("CreationDateTime", "TableId")


def described() -> dict[str, Any]:
    dynamodb = aws_state.client("dynamodb")
    out = {}
    for name in dynamodb.list_tables()["TableNames"]:
        table = dynamodb.describe_table(TableName=name)["Table"]
        out[name] = {k: v for k, v in table.items() if k not in VOLATILE}
    return out


def test_the_tables_made_in_the_backend_are_those_create_table_makes() -> None:
    from moto import mock_aws

    with mock_aws():
        aws_state.create_tables()
        quick = described()
    with mock_aws():
        aws_state.create_tables_by_request()
        requested = described()
    assert len(quick) == 19 and quick == requested
