"""The least-privilege check itself, on planted cases: it must fail on a missing grant, on an
unused grant, on a call outside the stack's own keys, and pass only the exact set.

The evaluator is the real one (iam-simulate in Node); the roles come from a small SAM template
transformed by SAM itself, as the real template is.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.deploy.iam.check import Call, check
from tests.deploy.transform import World, local_world, transformed

TABLE = "arn:aws:dynamodb:us-east-1:123456789012:table/"


def template(statements: list[dict[str, Any]]) -> dict[str, Any]:
    """A one-function SAM template whose role holds `statements`."""
    return {
        "AWSTemplateFormatVersion": "2010-09-09", "Transform": "AWS::Serverless-2016-10-31",
        "Resources": {
            "ItemsTable": {"Type": "AWS::DynamoDB::Table", "Properties": {
                "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}]}},
            "OtherTable": {"Type": "AWS::DynamoDB::Table", "Properties": {
                "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}]}},
            "WorkFunction": {"Type": "AWS::Serverless::Function", "Properties": {
                "Runtime": "python3.12", "Handler": "app.handler", "CodeUri": "functions/jwks/",
                "Policies": [{"Statement": statements}]}},
        },
    }


def call(action: str, resource: str, world: str = "local", **context: Any) -> Call:
    return Call(world=world, function="WorkFunction", operation=action, action=action, resource=resource,
                context=json.dumps(context, sort_keys=True), test="tests/planted.py::test_it")


def run(statements: list[dict[str, Any]], calls: list[Call], *, unused: bool = True,
        reasons: list[dict[str, str]] | None = None) -> Any:
    source = template(statements)
    worlds = {"local": local_world(source), "planted": World(stack="planted")}
    return check(calls, worlds, transformed(source), unused=unused, reasons=reasons or [])


READ_ITEMS = {"Sid": "ReadItems", "Effect": "Allow", "Action": "dynamodb:GetItem",
              "Resource": {"Fn::GetAtt": ["ItemsTable", "Arn"]}}


def test_the_exact_grants_pass() -> None:
    report = run([READ_ITEMS], [call("dynamodb:GetItem", TABLE + "ItemsTable")])
    assert not report.failed, report.summary()
    assert report.rows[0][:4] == ("WorkFunction", "dynamodb:GetItem", "ItemsTable", "tests/planted.py::test_it")


def test_a_call_without_a_grant_fails() -> None:
    report = run([READ_ITEMS], [call("dynamodb:GetItem", TABLE + "ItemsTable"),
                                call("dynamodb:PutItem", TABLE + "ItemsTable")])
    assert report.failed
    assert [(c.action, r["result"]) for c, r in report.denied] == [("dynamodb:PutItem", "ImplicitlyDenied")]


def test_a_grant_on_the_wrong_table_fails() -> None:
    report = run([READ_ITEMS], [call("dynamodb:GetItem", TABLE + "OtherTable")])
    assert [c.resource for c, _ in report.denied] == [TABLE + "OtherTable"]


def test_an_unused_action_fails_unless_excused() -> None:
    statements = [{**READ_ITEMS, "Action": ["dynamodb:GetItem", "dynamodb:DeleteItem"]}]
    calls = [call("dynamodb:GetItem", TABLE + "ItemsTable")]

    report = run(statements, calls)
    assert report.failed and [g.label() for g in report.unused] == ["WorkFunction ReadItems: dynamodb:DeleteItem"]

    excused = run(statements, calls, reasons=[{"function": "WorkFunction", "sid": "ReadItems",
                                               "action": "dynamodb:DeleteItem", "reason": "planted"}])
    assert not excused.failed and list(excused.excused.values()) == ["planted"]
    # Unused grants only fail the whole suite's run (make test passes --iam-unused).
    assert not run(statements, calls, unused=False).failed


def test_an_unused_resource_of_a_statement_fails() -> None:
    statements = [{**READ_ITEMS, "Resource": [{"Fn::GetAtt": ["ItemsTable", "Arn"]},
                                              {"Fn::GetAtt": ["OtherTable", "Arn"]}]}]
    report = run(statements, [call("dynamodb:GetItem", TABLE + "ItemsTable")])
    assert [g.label() for g in report.unused] == ["WorkFunction ReadItems: resource OtherTable"]


SIGN = {"Sid": "Sign", "Effect": "Allow", "Action": "kms:Sign",
        "Resource": {"Fn::Sub": "arn:${AWS::Partition}:kms:${AWS::Region}:${AWS::AccountId}:key/*"},
        "Condition": {"StringEquals": {"aws:ResourceTag/authgate-stack": {"Ref": "AWS::StackName"}}}}
KEY = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def test_kms_is_allowed_only_on_this_stacks_keys() -> None:
    ours = call("kms:Sign", KEY, world="planted", **{"aws:ResourceTag/authgate-stack": "planted"})
    theirs = call("kms:Sign", KEY, world="planted", **{"aws:ResourceTag/authgate-stack": "another-stack"})
    untagged = call("kms:Sign", KEY, world="planted")

    assert not run([SIGN], [ours]).failed
    report = run([SIGN], [ours, theirs, untagged])
    assert sorted(json.dumps(c.context_dict) for c, _ in report.denied) == sorted(
        [json.dumps({"aws:ResourceTag/authgate-stack": "another-stack"}), "{}"])


def test_calls_of_an_unknown_stack_or_function_are_problems_not_passes() -> None:
    stray = Call(world="nowhere", function="WorkFunction", operation="x", action="dynamodb:GetItem",
                 resource=TABLE + "ItemsTable", context="{}", test="t")
    ghost = Call(world="local", function="GhostFunction", operation="x", action="dynamodb:GetItem",
                 resource=TABLE + "ItemsTable", context="{}", test="t")
    report = run([READ_ITEMS], [call("dynamodb:GetItem", TABLE + "ItemsTable"), stray, ghost])
    assert report.failed and len(report.problems) == 2


@pytest.mark.parametrize("action", ["dynamodb:TransactWriteItems", "dynamodb:GetItems"])
def test_an_action_iam_does_not_know_is_an_error_not_a_pass(action: str) -> None:
    report = run([{**READ_ITEMS, "Action": "dynamodb:*"}], [call(action, TABLE + "ItemsTable")])
    assert [r["result"] for _, r in report.denied] == ["Error"]
