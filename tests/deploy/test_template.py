"""The template as CloudFormation receives it (SAM-transformed): one stage, data that survives,
names by the stack, capacity-sized throttles, a custom resource that cannot hang a stack."""

from __future__ import annotations

import copy
import time
from typing import Any

import pytest

from authgate_cli.local import template as reader
from tests.deploy.transform import World, condition, resolve, transformed


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


@pytest.mark.slow
def test_sam_creates_exactly_one_stage_and_would_create_two_without_openapiversion(cfn: dict[str, Any]) -> None:
    assert stage_names(cfn) == [str({"Ref": "Stage"})]

    planted = copy.deepcopy(reader.load())
    del planted["Resources"]["AuthgateApi"]["Properties"]["OpenApiVersion"]
    assert stage_names(transformed(planted)) == sorted(["Stage", str({"Ref": "Stage"})])  # the implicit one


def test_stateful_resources_are_retained_and_tables_protected(cfn: dict[str, Any]) -> None:
    # RetainExceptOnCreate: kept on deletion, but a first create that rolls back leaves nothing.
    for kind in ("AWS::DynamoDB::Table", "AWS::SecretsManager::Secret", "AWS::Logs::LogGroup"):
        for name, resource in of_type(cfn, kind).items():
            assert (resource.get("DeletionPolicy"), resource.get("UpdateReplacePolicy")) == (
                "RetainExceptOnCreate", "Retain"), name
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


def test_the_custom_resource_names_the_id_token_algorithms(cfn: dict[str, Any]) -> None:
    """A stack upgraded to a version with an RS256 key for ID tokens sees the resource change, so its deploy
    runs ensure_keys and creates that key (OIDC Discovery 1.0 3: RS256 always offered)."""
    algs = cfn["Resources"]["SigningKeysBootstrap"]["Properties"]["IdTokenSigningAlgorithms"]
    assert algs == {"Fn::If": ["SignsWithEcc", "RS256,ES256", "RS256"]}


def test_the_api_writes_a_json_access_log_to_a_retained_group(cfn: dict[str, Any]) -> None:
    import json
    import re

    stage = cfn["Resources"]["AuthgateApiStage"]["Properties"]
    assert stage["AccessLogSetting"]["DestinationArn"] == {"Fn::GetAtt": ["ApiAccessLogGroup", "Arn"]}
    fmt = stage["AccessLogSetting"]["Format"]
    line = json.loads(re.sub(r"\$context\.[A-Za-z0-9_.]+", lambda m: json.dumps(m.group(0))[1:-1]
                             if f'"{m.group(0)}"' in fmt else json.dumps(m.group(0)), fmt))
    assert {"requestId", "extendedRequestId", "status", "errorMessage", "integrationLatency",
            "integrationError", "responseLatency", "sourceIp"} <= set(line)
    assert not any("header" in v.lower() or "querystring" in v.lower() for v in line.values())
    settings = stage["MethodSettings"]
    assert all(s.get("DataTraceEnabled") is False for s in settings)  # bodies never reach execution logs


# ------------------------------------------------------------------ what the emulation cannot see


def _parameters_in(value: Any, doc: dict[str, Any]) -> set[str]:
    """Parameters a value depends on: Refs, ${Sub} names and the conditions of its Fn::Ifs."""
    found: set[str] = set()
    params = set(doc.get("Parameters") or {})
    if isinstance(value, list):
        for v in value:
            found |= _parameters_in(v, doc)
    elif isinstance(value, dict):
        for key, arg in value.items():
            if key == "Ref" and arg in params:
                found.add(arg)
            elif key == "Fn::If":
                found |= _parameters_in(doc["Conditions"][arg[0]], doc) | _parameters_in(arg[1:], doc)
            elif key == "Fn::Sub":
                text = arg if isinstance(arg, str) else arg[0]
                found |= {p for p in params if "${" + p + "}" in text}
                found |= _parameters_in(arg if isinstance(arg, str) else arg[1], doc)
            else:
                found |= _parameters_in(arg, doc)
    return found


def _another_value(name: str, declared: dict[str, Any]) -> str:
    allowed = [str(v) for v in declared.get("AllowedValues") or []]
    default = str(declared.get("Default", ""))
    if allowed:
        return next(v for v in allowed if v != default)
    if declared["Type"] == "Number":
        return str(int(float(default or 1)) + 1)
    return {"IssuerUrl": "https://auth.example.com", "DomainName": "auth.example.com"}.get(name, default + "x")


def deployments(doc: dict[str, Any]) -> list[str]:
    return sorted(of_type(doc, "AWS::ApiGateway::Deployment"))


@pytest.mark.slow
def test_every_parameter_that_reaches_the_api_body_redeploys_the_stage() -> None:
    source = reader.load()
    base = transformed(source)
    (api,) = of_type(base, "AWS::ApiGateway::RestApi").values()
    reaching = _parameters_in(api["Properties"]["Body"], base)
    assert {"IssuerUrl", "DomainName"} <= reaching  # the gateway responses' problem type URLs
    defaults = {name: str(p.get("Default", "")) for name, p in source["Parameters"].items()}
    before = deployments(transformed(source, defaults, cache=False))
    # AlwaysDeploy hashes the transform's time in whole seconds (samtranslator's
    # ApiGatewayDeployment.make_auto_deployable): a later deploy is at least a second later.
    started = int(time.time())
    while int(time.time()) == started:
        time.sleep(0.05)
    for name in sorted(reaching):
        after = transformed(source, {**defaults, name: _another_value(name, source["Parameters"][name])}, cache=False)
        # A Deployment with a new logical id is a new deployment of the stage's body.
        assert before != deployments(after), name


def test_json_logs_are_filtered_at_the_log_level_parameter_and_never_above_info() -> None:
    # DEBUG lines reach the log at LogLevel=DEBUG; the audit trail's INFO lines at every LogLevel
    # (the functions' own logger drops what the level leaves out; docs/audit.md).
    source = reader.load()
    for level, lambda_level in {"DEBUG": "DEBUG", "INFO": "INFO", "WARNING": "INFO", "ERROR": "INFO"}.items():
        doc = transformed(source)
        world = World(stack="s", parameters={"LogLevel": level})
        for name, function in of_type(doc, "AWS::Lambda::Function").items():
            config = function["Properties"]["LoggingConfig"]
            assert config["LogFormat"] == "JSON", name
            value = config["ApplicationLogLevel"]
            resolved = doc["Mappings"][value["Fn::FindInMap"][0]][resolve(value["Fn::FindInMap"][1], doc, world)]
            assert resolved[value["Fn::FindInMap"][2]] == lambda_level, (name, level)


# $context variables a client sets (API Gateway developer guide, "$context variables for access
# logging"): written raw, a quote in one of them breaks or forges the JSON line.
CLIENT_CONTROLLED = {"identity.userAgent", "path", "identity.caller", "identity.user", "identity.userArn",
                     "error.message", "identity.clientCert.subjectDN", "identity.clientCert.issuerDN",
                     "domainPrefix", "domainName"}


def test_the_access_log_line_stays_json_whatever_a_client_sends(cfn: dict[str, Any]) -> None:
    import json
    import re

    fmt = cfn["Resources"]["AuthgateApiStage"]["Properties"]["AccessLogSetting"]["Format"]
    variables = set(re.findall(r"\$context\.([A-Za-z0-9_.]+)", fmt))
    assert not variables & CLIENT_CONTROLLED, variables & CLIENT_CONTROLLED
    hostile = 'a"},"forged":"1\\'
    # API Gateway substitutes text as is, except the *String variants, which it quotes and escapes.
    line = re.sub(r"\$context\.([A-Za-z0-9_.]+)",
                  lambda m: json.dumps(hostile) if m.group(1).endswith("messageString") else "v", fmt)
    parsed = json.loads(line)
    assert "forged" not in parsed and parsed["errorMessage"] == hostile


def test_api_gateways_execution_logs_are_kept_as_long_as_the_others(cfn: dict[str, Any]) -> None:
    group = cfn["Resources"]["ApiExecutionLogGroup"]
    world = World(stack="s", refs={"AuthgateApi": "a1b2c3"}, parameters={"Stage": "production"})
    assert resolve(group["Properties"]["LogGroupName"], cfn, world) == "API-Gateway-Execution-Logs_a1b2c3/production"
    for name, resource in of_type(cfn, "AWS::Logs::LogGroup").items():
        assert resource["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionInDays"}, name


API_FUNCTIONS = ("AuthorizeFunction", "TokenFunction", "JwksFunction", "ChargesFunction", "ConsoleFunction")


@pytest.mark.parametrize("snapstart", ["off", "on"])
def test_snapstart_applies_to_the_published_versions_the_api_invokes(snapstart: str) -> None:
    doc = transformed(reader.load())
    world = World(stack="s", parameters={"SnapStart": snapstart})
    aliases = of_type(doc, "AWS::Lambda::Alias")
    (api,) = of_type(doc, "AWS::ApiGateway::RestApi").values()
    body = str(api["Properties"]["Body"])
    for name in API_FUNCTIONS:
        function = doc["Resources"][name]["Properties"]
        applied = resolve({"SnapStart": function.get("SnapStart")}, doc, world)
        assert applied == ({"SnapStart": {"ApplyOn": "PublishedVersions"}} if snapstart == "on" else {}), name
        alias = aliases[f"{name}Aliaslive"]["Properties"]
        assert alias["FunctionName"] == {"Ref": name} and alias["Name"] == "live"
        # Every route of the function reaches the alias (a version), never $LATEST.
        assert "${" + name + "Aliaslive}" in body and "${" + name + ".Arn}" not in body, name
    assert reader.load()["Parameters"]["SnapStart"]["Default"] == "off"


@pytest.mark.parametrize(("alg", "quota", "resource"), [("RS256", 500, "CryptographicOperationsRsa"),
                                                        ("ES256", 300, "CryptographicOperationsEcc")])
def test_with_kms_the_token_route_is_throttled_under_the_accounts_sign_quota(alg: str, quota: int,
                                                                           resource: str) -> None:
    doc = transformed()
    world = World(stack="s", parameters={"SigningBackend": "kms", "SigningAlgorithm": alg})
    stage = doc["Resources"]["AuthgateApiStage"]["Properties"]
    token = next(s for s in stage["MethodSettings"] if s["ResourcePath"] == "/~1oauth~1token")
    limits = [float(resolve(token[k], doc, world)) for k in ("ThrottlingRateLimit", "ThrottlingBurstLimit")]
    assert max(limits) <= quota  # one Sign per token: KMS is never the first limit
    for name in ("KmsOAuthTokenRateLimit", "KmsOAuthTokenBurstLimit"):
        assert doc["Parameters"][name]["MaxValue"] <= 300  # not even when set (ECC's quota)
    local = World(stack="s", parameters={"SigningBackend": "local"})
    assert float(resolve(token["ThrottlingRateLimit"], doc, local)) == 1000  # local signing: no KMS quota
    alarm = doc["Resources"]["KmsSignQuotaAlarm"]
    assert alarm["Condition"] == "SignsWithKms"
    props = resolve(alarm["Properties"], doc, world)
    assert (props["Namespace"], props["MetricName"]) == ("AWS/Usage", "CallCount")
    assert {"Name": "Resource", "Value": resource} in props["Dimensions"]
    assert props["Threshold"] < quota * props["Period"]
    # ES256 access tokens: ID tokens are RS256 (OIDC Discovery 1.0 3), so the RSA quota is watched as well.
    rsa = doc["Resources"]["KmsRsaSignQuotaAlarm"]
    assert rsa["Condition"] == "SignsIdTokensWithKmsRsa"
    assert doc["Conditions"]["SignsIdTokensWithKmsRsa"] == {"Fn::And": [{"Condition": "SignsWithKms"},
                                                                         {"Condition": "SignsWithEcc"}]}
    assert condition("SignsIdTokensWithKmsRsa", doc, world) == (alg == "ES256")
    props = resolve(rsa["Properties"], doc, world)
    assert {"Name": "Resource", "Value": "CryptographicOperationsRsa"} in props["Dimensions"]
    assert props["Threshold"] < 500 * props["Period"]


def test_every_alarm_on_authgates_metrics_watches_one_the_functions_count(cfn: dict[str, Any]) -> None:
    """An alarm on a metric nothing emits never fires: each authgate-namespace alarm names a metric
    authgate.http.metrics counts for some error code, or one the deliver function counts per outcome
    (authgate.deliveries.deliver), under the dimension it publishes."""
    from authgate.audit_trail.consumer import METRICS as AUDIT_METRICS
    from authgate.deliveries import approval_webhook, pending_signals, queued_mail, security_events
    from authgate.deliveries.deliver import METRICS
    from authgate.errors.catalogue import catalogue
    from authgate.http.metrics import SERVICE, counted_metrics

    emitted = {name for code, info in catalogue().items() for name in counted_metrics(info.status, code)}
    emitted |= set(METRICS.values()) | set(approval_webhook.METRICS.values()) | set(queued_mail.METRICS.values())
    emitted |= set(AUDIT_METRICS.values()) | set(security_events.METRICS.values()) | {pending_signals.FAILED}
    watched = {name: r["Properties"] for name, r in of_type(cfn, "AWS::CloudWatch::Alarm").items()
               if r["Properties"]["Namespace"] == "authgate"}
    assert {"InvalidTokenSpikeAlarm", "StorageThrottlingAlarm", "RegistrationPoolFullAlarm",
            "BackchannelLogoutFailedAlarm", "ApprovalWebhookFailedAlarm", "MailFailedAlarm"} <= set(watched)
    for name, props in watched.items():
        assert props["MetricName"] in emitted, name
        assert props["Dimensions"] == [{"Name": "service", "Value": SERVICE}], name
    pool = watched["RegistrationPoolFullAlarm"]
    assert (pool["MetricName"], pool["Statistic"], pool["Threshold"], pool["ComparisonOperator"]) == (
        "RegistrationPoolFull", "Sum", 1, "GreaterThanOrEqualToThreshold")
    assert counted_metrics(503, "registration_pool_full") == [
        "ErrorResponses", "ServerErrors", "RegistrationPoolFull"]


def test_the_readmes_one_exception_to_x_request_id_is_what_the_gateway_responses_do() -> None:
    """README: gateway responses carry no x-request-id, but the request id as the body's traceId and as
    x-amz-apigw-id (which API Gateway adds itself, carrying $context.extendedRequestId; exposed to browsers)."""
    import re

    readme = re.sub(r"\s+", " ", (reader.REPO_ROOT / "README.md").read_text("utf-8"))
    assert ("The one exception to `x-request-id`: the responses API Gateway sends itself (the template's "
            "`GatewayResponses`") in readme
    assert "cannot set it, and carry the request id as the body's `traceId` and API Gateway's `x-amz-apigw-id` " \
           "header instead" in readme
    responses = reader.load()["Resources"]["AuthgateApi"]["Properties"]["GatewayResponses"]
    assert len(responses) >= 20
    for name, response in responses.items():
        headers = {k.lower(): v for k, v in response["ResponseParameters"]["Headers"].items()}
        assert "x-request-id" not in headers, name
        assert "x-amz-apigw-id" in headers["access-control-expose-headers"], name
        (body,) = response["ResponseTemplates"].values()
        text = body["Fn::Sub"][0] if isinstance(body, dict) else body
        assert '"traceId":"$context.extendedRequestId"' in text, name


def test_the_console_may_write_keys_tables_saml_item_and_no_other() -> None:
    """SamlKeysPages' PutItem holds for the item the SAML keys' store writes alone: the table's partition key (kid)
    is that item's. The IAM check records no dynamodb:LeadingKeys, so this ties the condition to the store."""
    from authgate.stores.saml_sp_keys import SP_KID

    resources = reader.load()["Resources"]
    [statement] = [s for policy in resources["ConsoleFunction"]["Properties"]["Policies"]
                   for s in policy["Statement"] if s["Sid"] == "SamlKeysPages"]
    assert (statement["Action"], statement["Condition"]) == (
        "dynamodb:PutItem", {"ForAllValues:StringEquals": {"dynamodb:LeadingKeys": [SP_KID]}})
    assert resources["KeysTable"]["Properties"]["KeySchema"] == [{"AttributeName": "kid", "KeyType": "HASH"}]
