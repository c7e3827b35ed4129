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

# Slow: every test runs the IAM policy simulator (Node).
pytestmark = pytest.mark.slow

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


def test_an_invoke_is_allowed_on_the_function_granted_and_no_other() -> None:
    from tests.deploy.iam.site import authgate_call_recorder as recorder

    source = template([{"Sid": "AskTheHelper", "Effect": "Allow", "Action": "lambda:InvokeFunction",
                        "Resource": {"Fn::GetAtt": ["HelperFunction", "Arn"]}}])
    source["Resources"]["HelperFunction"] = {"Type": "AWS::Serverless::Function", "Properties": {
        "Runtime": "python3.12", "Handler": "app.handler", "CodeUri": "functions/jwks/"}}

    def invoke(name: str) -> Call:
        (request,) = recorder.iam_requests("lambda", "us-east-1", "Invoke", {"FunctionName": name}, None, {})
        return call(request["action"], request["resource"])

    # Named as the local stack names it, and by its ARN: one request, InvokeFunction on the function's ARN.
    asked = invoke("HelperFunction")
    assert (asked.action, asked.resource) == ("lambda:InvokeFunction",
                                              "arn:aws:lambda:us-east-1:123456789012:function:HelperFunction")
    assert invoke("arn:aws:lambda:us-east-1:123456789012:function:HelperFunction") == asked
    worlds = {"local": local_world(source)}
    assert not check([asked], worlds, transformed(source), unused=True, reasons=[]).failed
    report = check([asked, invoke("WorkFunction")], worlds, transformed(source), unused=True, reasons=[])
    assert [(c.action, c.resource.rsplit(":", 1)[1]) for c, _ in report.denied] == [
        ("lambda:InvokeFunction", "WorkFunction")]


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


# ------------------------------------------------------------------ KMS as AWS authorizes it

PRINCIPAL = "arn:aws:iam::123456789012:role/planted-WorkFunctionRole"
ROOT_ONLY = {"Version": "2012-10-17", "Statement": [{
    "Sid": "Enable IAM User Permissions", "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::123456789012:root"},
    "Action": "kms:*", "Resource": "*"}]}
RSA_SIGNING = {"kms:KeySpec": "RSA_2048", "kms:KeyUsage": "SIGN_VERIFY", "kms:KeyOrigin": "AWS_KMS"}


def kms_call(action: str, *, policy: dict[str, Any] | None = None, **context: Any) -> Call:
    return Call(world="planted", function="WorkFunction", operation=action, action=action, resource=KEY,
                context=json.dumps(context, sort_keys=True), test="tests/planted.py::test_it",
                resource_policy=json.dumps(policy, sort_keys=True) if policy else "")


def rotation_statements(*sids: str) -> list[dict[str, Any]]:
    """Statements of template.yaml's rotation role, by Sid (the real grants, not copies)."""
    from authgate_cli.local import template as reader

    statements = reader.load()["Resources"]["RotateKeysFunction"]["Properties"]["Policies"][0]["Statement"]
    return [s for s in statements if s["Sid"] in sids]


def test_a_call_right_after_createkey_is_denied_by_tag_conditions_and_allowed_by_the_key_policy() -> None:
    # What the first deploy did: GetPublicKey at once, allowed only through aws:ResourceTag. KMS
    # has not applied the new key's tags yet, so the call carries none and is refused.
    by_tag = {"Sid": "ReadByTag", "Effect": "Allow", "Action": "kms:GetPublicKey",
              "Resource": {"Fn::Sub": "arn:${AWS::Partition}:kms:${AWS::Region}:${AWS::AccountId}:key/*"},
              "Condition": {"StringEquals": {"aws:ResourceTag/authgate-stack": {"Ref": "AWS::StackName"}}}}
    fresh = kms_call("kms:GetPublicKey", policy=ROOT_ONLY, **RSA_SIGNING)
    assert [r["result"] for _, r in run([by_tag], [fresh], unused=False).denied] == ["ImplicitlyDenied"]
    # Five minutes later the tags count: the same grant allows the same call.
    settled = kms_call("kms:GetPublicKey", policy=ROOT_ONLY, **RSA_SIGNING, **{"aws:ResourceTag/authgate-stack": "planted"})
    assert not run([by_tag], [settled], unused=False).denied

    # Now: the key is created with a policy naming the role; no tag, and no IAM grant, needed.
    from authgate.tokens.kms_backend import key_policy

    named = key_policy("arn:aws:iam::123456789012:root", "", PRINCIPAL)
    for action in ("kms:GetPublicKey", "kms:ScheduleKeyDeletion"):
        assert not run([READ_ITEMS], [call("dynamodb:GetItem", TABLE + "ItemsTable"),
                                      kms_call(action, policy=named, **RSA_SIGNING)]).failed, action


def test_a_foreign_key_is_refused_even_when_the_role_may_tag_keys() -> None:
    statements = rotation_statements("TagThisStacksNewKmsKeys")
    ours = {"aws:RequestTag/authgate-stack": "planted", "aws:TagKeys": ["authgate-stack"]}
    new_signing_key = kms_call("kms:TagResource", **ours, **RSA_SIGNING)
    symmetric_data_key = kms_call("kms:TagResource", **ours, **{
        "kms:KeySpec": "SYMMETRIC_DEFAULT", "kms:KeyUsage": "ENCRYPT_DECRYPT", "kms:KeyOrigin": "AWS_KMS"})
    imported_signing_key = kms_call("kms:TagResource", **ours, **{**RSA_SIGNING, "kms:KeyOrigin": "EXTERNAL"})
    assert not run(statements, [new_signing_key]).failed
    report = run(statements, [new_signing_key, symmetric_data_key, imported_signing_key])
    assert sorted(c.context_dict["kms:KeySpec"] + "/" + c.context_dict["kms:KeyOrigin"] for c, _ in report.denied) == [
        "RSA_2048/EXTERNAL", "SYMMETRIC_DEFAULT/AWS_KMS"]

    # Another stack's signing key, even tagged with this stack's name: no IAM grant reads or
    # deletes a key; only a key whose own policy names the role.
    other = kms_call("kms:ScheduleKeyDeletion", policy=ROOT_ONLY, **RSA_SIGNING,
                     **{"aws:ResourceTag/authgate-stack": "planted"})
    signing = kms_call("kms:Sign", policy=ROOT_ONLY, **RSA_SIGNING, **{"aws:ResourceTag/authgate-stack": "planted"})
    report = run(statements, [new_signing_key, other, signing])
    assert sorted(c.action for c, _ in report.denied) == ["kms:ScheduleKeyDeletion", "kms:Sign"]


def test_a_conditional_role_policy_grants_only_in_a_world_where_its_condition_holds() -> None:
    """An AWS::IAM::RolePolicy on the function's role (a grant only some stacks have, as the deliver function's
    ses:SendEmail where MailIdentity is set) counts in a world where its Condition holds, and nowhere else."""
    source = template([READ_ITEMS])
    source["Parameters"] = {"MailIdentity": {"Type": "String", "Default": ""}}
    source["Conditions"] = {"SendsMail": {"Fn::Not": [{"Fn::Equals": [{"Ref": "MailIdentity"}, ""]}]}}
    source["Resources"]["WorkMailPolicy"] = {
        "Type": "AWS::IAM::RolePolicy", "Condition": "SendsMail", "Properties": {
            "RoleName": {"Ref": "WorkFunctionRole"}, "PolicyName": "mail", "PolicyDocument": {
                "Version": "2012-10-17", "Statement": [{
                    "Sid": "SendMail", "Effect": "Allow", "Action": "ses:SendEmail",
                    "Resource": {"Fn::Sub": "arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/"
                                            "${MailIdentity}"}}]}}}
    worlds = {"local": local_world(source), "planted": World(stack="planted")}
    identity = "arn:aws:ses:us-east-1:123456789012:identity/mail.demo.example"
    calls = [call("dynamodb:GetItem", TABLE + "ItemsTable"), call("ses:SendEmail", identity),
             call("ses:SendEmail", identity, world="planted")]
    report = check(calls, worlds, transformed(source), unused=True, reasons=[])
    assert [(c.world, c.action, r["result"]) for c, r in report.denied] == [
        ("planted", "ses:SendEmail", "ImplicitlyDenied")]
    assert report.unused == []
