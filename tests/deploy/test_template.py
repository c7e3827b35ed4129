"""The template as CloudFormation receives it (SAM-transformed): one stage, data that survives,
names by the stack, capacity-sized throttles, a custom resource that cannot hang a stack."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from authgate_cli.local import template as reader
from tests.deploy.transform import World, resolve, transformed


@pytest.fixture(scope="module")
def cfn() -> dict[str, Any]:
    return transformed()


def of_type(doc: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {name: r for name, r in doc["Resources"].items() if r["Type"] == kind}


def stage_names(doc: dict[str, Any]) -> list[str]:
    """Every stage the template creates: Stage resources, and Deployments that name a stage
    (API Gateway creates that stage with the deployment)."""
    names = [str(r["Properties"]["StageName"]) for r in of_type(doc, "AWS::ApiGateway::Stage").values()]
    names += [str(r["Properties"]["StageName"]) for r in of_type(doc, "AWS::ApiGateway::Deployment").values()
              if "StageName" in r["Properties"]]
    return sorted(names)


def test_sam_creates_exactly_one_stage_and_would_create_two_without_openapiversion(cfn: dict[str, Any]) -> None:
    assert stage_names(cfn) == [str({"Ref": "Stage"})]

    planted = copy.deepcopy(reader.load())
    del planted["Resources"]["AuthgateApi"]["Properties"]["OpenApiVersion"]
    assert stage_names(transformed(planted)) == sorted(["Stage", str({"Ref": "Stage"})])  # the implicit one


def test_stateful_resources_are_retained_and_tables_protected(cfn: dict[str, Any]) -> None:
    for kind in ("AWS::DynamoDB::Table", "AWS::SecretsManager::Secret", "AWS::Logs::LogGroup"):
        for name, resource in of_type(cfn, kind).items():
            assert (resource.get("DeletionPolicy"), resource.get("UpdateReplacePolicy")) == ("Retain", "Retain"), name
    for name, table in of_type(cfn, "AWS::DynamoDB::Table").items():
        props = table["Properties"]
        assert props["DeletionProtectionEnabled"] is True, name
        assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}, name
        assert {"Key": "authgate-stack", "Value": {"Ref": "AWS::StackName"}} in props["Tags"], name


def test_names_and_key_scopes_follow_the_stack_not_the_stage(cfn: dict[str, Any]) -> None:
    world = World(stack="authgate-blue", parameters={"Stage": "production"})
    text = str([resolve(r["Properties"].get("Policies"), cfn, world)
                for r in of_type(cfn, "AWS::IAM::Role").values()])
    assert "secret:authgate/authgate-blue/signing/*" in text
    assert "'aws:RequestTag/authgate-stack': 'authgate-blue'" in text
    assert "production" not in text and "authgate-stage" not in text.replace("'authgate-stage'", "")
    environment = cfn["Resources"]["TokenFunction"]["Properties"]["Environment"]["Variables"]
    assert environment["AUTHGATE_STACK_NAME"] == {"Ref": "AWS::StackName"}


def test_no_role_may_touch_kms_keys_or_secrets_beyond_its_stack(cfn: dict[str, Any]) -> None:
    for role in of_type(cfn, "AWS::IAM::Role").values():
        for policy in role["Properties"].get("Policies") or []:
            for statement in policy["PolicyDocument"]["Statement"]:
                actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
                if any(a.startswith("kms:") for a in actions):
                    condition = statement.get("Condition") or {}
                    scoped = str(condition.get("StringEquals", {}))
                    assert "authgate-stack" in scoped and "AWS::StackName" in scoped, statement
                if statement.get("Resource") == "*":
                    assert actions == ["kms:CreateKey"] and statement.get("Condition"), statement


def test_throttles_let_a_stage_serve_1000_token_and_2000_api_requests_per_second() -> None:
    params = {name: p.get("Default") for name, p in reader.load()["Parameters"].items()}
    assert params["OAuthTokenRateLimit"] >= 1000
    assert params["ApiMethodRateLimit"] >= 2000  # each charges method has its own bucket this size
    assert params["ApiMethodBurstLimit"] <= 5000 and params["OAuthTokenBurstLimit"] <= 5000  # account burst


def test_the_quota_response_never_promises_a_retry_before_the_daily_reset() -> None:
    quota = reader.load()["Resources"]["AuthgateApi"]["Properties"]["GatewayResponses"]["QUOTA_EXCEEDED"]
    assert quota["ResponseParameters"]["Headers"]["Retry-After"] == "'86400'"


def test_the_custom_resource_has_a_service_timeout(cfn: dict[str, Any]) -> None:
    bootstrap = cfn["Resources"]["SigningKeysBootstrap"]
    assert bootstrap["Type"] == "Custom::SigningKeys"
    timeout = bootstrap["Properties"]["ServiceTimeout"]
    function_timeout = cfn["Resources"]["RotateKeysFunction"]["Properties"]["Timeout"]
    assert function_timeout < timeout <= 3600


def test_the_api_writes_a_json_access_log_to_a_retained_group(cfn: dict[str, Any]) -> None:
    import json

    stage = cfn["Resources"]["AuthgateApiStage"]["Properties"]
    assert stage["AccessLogSetting"]["DestinationArn"] == {"Fn::GetAtt": ["ApiAccessLogGroup", "Arn"]}
    line = json.loads(stage["AccessLogSetting"]["Format"])
    assert {"requestId", "extendedRequestId", "status", "errorMessage", "integrationLatency",
            "integrationError", "responseLatency", "sourceIp"} <= set(line)
    assert not any("header" in v.lower() or "querystring" in v.lower() for v in line.values())
    settings = stage["MethodSettings"]
    assert all(s.get("DataTraceEnabled") is False for s in settings)  # bodies never reach execution logs
