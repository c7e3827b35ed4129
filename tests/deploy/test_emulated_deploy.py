"""The SAM-transformed template deployed into an emulated CloudFormation (moto, server mode), then
used as a new user would: the custom resource bootstraps keys, the admin CLI adds the first tenant
and client through `--stack-name`, and a token, a charge, a 404, the login page and the JWKS go
through the deployed API's stage (routes read back from the deployed RestApi). Deleting the stack
retires the keys and keeps the data.

Every resource CloudFormation reports is read back through its own service's API, so nothing is
counted as created that was not (adapters for what moto lacks: tests/deploy/adapters.py).
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest

from tests.contract import check_response
from tests.deploy import adapters
from tests.deploy.emulated import DeployedStack, EmulatedCloud
from tests.deploy.transform import resolve

# Slow: SAM's transform and a deployment emulated resource by resource.
pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cloud() -> Iterator[EmulatedCloud]:
    # The IAM check evaluates calls against this cloud's stacks: each deploy records its world.
    calls = os.environ.get("AUTHGATE_AWS_CALL_LOG_DIR")
    emulated = EmulatedCloud.start(worlds_dir=Path(calls) / "worlds" if calls else None)
    adapters.DELETE_ANSWERS.clear()
    try:
        yield emulated
    finally:
        emulated.stop()


def cli(cloud: EmulatedCloud, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """The installed `authgate` command, aimed at the emulated account as AWS_ENDPOINT_URL does."""
    command = Path(os.sys.executable).with_name("authgate")  # type: ignore[attr-defined]
    env = {**os.environ, "AWS_ENDPOINT_URL": cloud.endpoint, "AWS_ACCESS_KEY_ID": "testing",
           "AWS_SECRET_ACCESS_KEY": "testing", "AWS_SESSION_TOKEN": "testing", "AWS_DEFAULT_REGION": "us-east-1"}
    for name in [n for n in env if n.startswith("AUTHGATE_") and n != "AUTHGATE_AWS_CALL_LOG_DIR"]:
        env.pop(name)
    return subprocess.run([str(command), *args], cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False, input=stdin)


def body(reply: Any) -> Any:
    return json.loads(reply.body)


def headers(reply: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in reply.headers}


def contract(reply: Any, api: bool = True) -> None:
    check_response(reply.status, reply.headers, reply.body, api=api)


def read_back(stack: DeployedStack) -> dict[str, str]:
    """Each resource CloudFormation reports, found through its service's API: logical id -> how."""
    c = stack.cloud.client
    found: dict[str, str] = {}
    physical = stack.physical()
    api_id = physical["AuthgateApi"]
    for resource in stack.resources():
        logical, kind = resource["LogicalResourceId"], resource["ResourceType"]
        assert resource["ResourceStatus"] == "CREATE_COMPLETE", resource
        pid = resource.get("PhysicalResourceId", "")
        if kind == "AWS::DynamoDB::Table":
            assert c("dynamodb").describe_table(TableName=pid)["Table"]["TableStatus"] == "ACTIVE"
        elif kind == "AWS::IAM::Role":
            assert c("iam").list_role_policies(RoleName=pid)["PolicyNames"]
        elif kind == "AWS::Lambda::Function":
            assert c("lambda").get_function(FunctionName=pid)["Configuration"]["Runtime"] == "python3.12"
        elif kind == "AWS::Lambda::Alias":
            # The `live` alias of each API function, on the version the deploy published.
            alias = c("lambda").get_alias(FunctionName=physical[logical.split("Alias", 1)[0]], Name="live")
            assert alias["AliasArn"] == pid and alias["FunctionVersion"] != "$LATEST"
        elif kind == "AWS::Lambda::Version":
            function = physical[logical.split("Version", 1)[0]]
            assert [v for v in c("lambda").list_versions_by_function(FunctionName=function)["Versions"]
                    if v["Version"] != "$LATEST"]
        elif kind == "AWS::Lambda::LayerVersion":
            # moto reports no physical id for a layer version and names it after the resource.
            assert [layer for layer in c("lambda").list_layers()["Layers"]
                    if layer["LayerName"].startswith(f"{stack.name}-{logical}")]
        elif kind == "AWS::Lambda::Permission":
            function = logical.split("Function", 1)[0] + "Function"
            assert json.loads(c("lambda").get_policy(FunctionName=physical[function])["Policy"])["Statement"]
        elif kind == "AWS::Logs::LogGroup":
            assert c("logs").describe_log_groups(logGroupNamePrefix=pid)["logGroups"][0]["logGroupName"] == pid
        elif kind == "AWS::Events::Rule":
            assert c("events").describe_rule(Name=pid)["ScheduleExpression"] == "rate(7 days)"
        elif kind == "AWS::ApiGateway::RestApi":
            assert c("apigateway").get_rest_api(restApiId=pid)["name"] == f"{stack.name}-api"
        elif kind == "AWS::ApiGateway::Deployment":
            # moto reports no physical id for a deployment: the API must have exactly this one.
            assert len(c("apigateway").get_deployments(restApiId=api_id)["items"]) == 1
        elif kind == "AWS::ApiGateway::Stage":
            assert c("apigateway").get_stage(restApiId=api_id, stageName=pid)["stageName"] == pid
        elif kind == "AWS::ApiGateway::UsagePlan":
            assert c("apigateway").get_usage_plan(usagePlanId=pid)["apiStages"][0]["apiId"] == api_id
        elif kind == "AWS::ApiGateway::ApiKey":
            assert c("apigateway").get_api_key(apiKey=pid)["enabled"] is True
        elif kind == "AWS::ApiGateway::UsagePlanKey":
            plan = physical["StandardUsagePlan"]
            assert pid in {k["id"] for k in c("apigateway").get_usage_plan_keys(usagePlanId=plan)["items"]}
        elif kind == "AWS::CloudWatch::Alarm":
            assert c("cloudwatch").describe_alarms(AlarmNames=[pid])["MetricAlarms"][0]["AlarmName"] == pid
        elif kind == "AWS::SecretsManager::Secret":
            tags = c("secretsmanager").describe_secret(SecretId=pid)["Tags"]
            assert {"Key": "authgate-stack", "Value": stack.name} in tags
        elif kind == "AWS::SQS::Queue":
            attributes = c("sqs").get_queue_attributes(QueueUrl=pid, AttributeNames=["All"])["Attributes"]
            assert attributes["QueueArn"].endswith(pid.rsplit("/", 1)[-1])
        elif kind == "AWS::Lambda::EventSourceMapping":
            # The deliver function consumes the deliveries queue (authgate.deliveries), the audit
            # function the audit stream (authgate.audit_trail).
            mapping = c("lambda").get_event_source_mapping(UUID=pid)
            if logical.startswith("AuditFunction"):
                stream = c("kinesis").describe_stream(StreamName=physical["AuditStream"])["StreamDescription"]
                assert mapping["EventSourceArn"] == stream["StreamARN"]
            else:
                queue = physical["DeliveriesQueue"].rsplit("/", 1)[-1]
                assert mapping["EventSourceArn"].endswith(f":{queue}")
        elif kind == "AWS::KMS::Key":
            key = c("kms").describe_key(KeyId=pid)["KeyMetadata"]
            assert key["KeyUsage"] == ("GENERATE_VERIFY_MAC" if logical == "AuditMacKey" else "ENCRYPT_DECRYPT")
        elif kind == "AWS::S3::Bucket":
            lock = c("s3").get_object_lock_configuration(Bucket=pid)["ObjectLockConfiguration"]
            assert lock["Rule"]["DefaultRetention"]["Mode"] == "COMPLIANCE"
            assert c("s3").get_bucket_versioning(Bucket=pid)["Status"] == "Enabled"
        elif kind == "AWS::S3::BucketPolicy":
            statements = json.loads(c("s3").get_bucket_policy(Bucket=pid)["Policy"])["Statement"]
            assert "NothingIsDeleted" in {s.get("Sid") for s in statements}
        elif kind == "AWS::Kinesis::Stream":
            assert c("kinesis").describe_stream(StreamName=pid)["StreamDescription"]["StreamStatus"] == "ACTIVE"
        elif kind == "AWS::Logs::SubscriptionFilter":
            group = physical[logical.replace("AuditLines", "LogGroup")]
            filters = c("logs").describe_subscription_filters(logGroupName=group)["subscriptionFilters"]
            assert [f["filterPattern"] for f in filters] == ["{ $.authgate_audit = 1 }"]
        elif kind == "AWS::Events::EventBus":
            # moto reports no physical id for a bus: it is named after the stack.
            assert c("events").describe_event_bus(Name=f"{stack.name}-audit")["Name"] == f"{stack.name}-audit"
        elif kind == "AWS::Glue::Database":
            assert c("glue").get_database(Name=pid)["Database"]["Name"] == pid
        elif kind == "AWS::Glue::Table":
            database, table = pid.split("|")
            assert c("glue").get_table(DatabaseName=database, Name=table)["Table"]["PartitionKeys"][0]["Name"] == "date"
        elif kind == "Custom::SigningKeys":
            pass  # its effect is checked below: the keys exist
        elif kind == "Custom::ConsoleClient":
            # The console's client of the operators tenant, for the stage's issuer (authgate.console.client).
            client = c("dynamodb").get_item(TableName=physical["ClientsTable"],
                                            Key={"client_id": {"S": "authgate-console"}})["Item"]
            assert client["tenant_id"]["S"] == "operators"
            assert client["redirect_uris"]["L"][0]["S"].endswith("/console/callback")
        else:
            raise AssertionError(f"no read-back for {kind} ({logical})")
        found[logical] = kind
    return found


def _document(value: Any) -> Any:
    """moto returns an inline policy given as a mapping as that mapping's repr."""
    import ast

    return ast.literal_eval(value) if isinstance(value, str) else value


def deploy(cloud: EmulatedCloud, name: str, **parameters: str) -> DeployedStack:
    stack = cloud.deploy(name, parameters)
    assert stack.status == "CREATE_COMPLETE"
    return stack


def published_kids(stack: DeployedStack, physical: dict[str, str] | None = None) -> dict[str, str]:
    table = (physical or stack.physical())["KeysTable"]
    items = stack.cloud.client("dynamodb").scan(TableName=table, ConsistentRead=True)["Items"]
    # The keys' own items; the published keys' item (authgate.stores.signing_keys.RING_KID) is not a key.
    return {i["kid"]["S"]: i["state"]["S"] for i in items if "state" in i}


def test_the_stack_deploys_and_serves_a_token_a_charge_a_404_the_login_page_and_the_jwks(
        cloud: EmulatedCloud) -> None:
    # DPoP nonces on: the token and charges functions derive them from the stack's SessionSecret.
    stack = deploy(cloud, "authgate-emulated", Stage="staging", DpopNonces="true")

    # Every resource of the transformed template, created, and found through its own API.
    found = read_back(stack)
    # Every resource but those whose Condition is false here (SigningBackend=kms's quota alarms, the
    # custom domain and its mapping, the mail policy without MailIdentity).
    assert set(found) == set(stack.template["Resources"]) - {"KmsSignQuotaAlarm", "KmsRsaSignQuotaAlarm",
                                                             "ApiDomainName", "ApiBasePathMapping",
                                                             "DeliverMailPolicy"}
    adapter_types = {a.cloudformation_type() for a in adapters.install()}
    assert {k for k in found.values() if k in adapter_types} == adapter_types - {"AWS::ApiGateway::RestApi"} | {
        "AWS::ApiGateway::RestApi"}
    # Exactly one stage, the template's, with its throttles and access log.
    apigateway = cloud.client("apigateway")
    api_id = stack.physical()["AuthgateApi"]
    stages = apigateway.get_stages(restApiId=api_id)["item"]
    assert [s["stageName"] for s in stages] == ["staging"]
    settings = stages[0]["methodSettings"]
    assert settings["*/*"]["throttlingRateLimit"] == 3000.0
    assert settings["~1oauth~1token/POST"]["throttlingRateLimit"] == 1000.0
    destination = stages[0]["accessLogSettings"]["destinationArn"]
    assert destination.removesuffix(":*").endswith(f":log-group:{stack.physical()['ApiAccessLogGroup']}")
    assert '"extendedRequestId":"$context.extendedRequestId"' in stages[0]["accessLogSettings"]["format"]

    # The roles CloudFormation created hold exactly the policies the IAM check resolves.
    world = stack.world()
    iam = cloud.client("iam")
    for function in ("AuthorizeFunction", "TokenFunction", "JwksFunction", "ChargesFunction", "RotateKeysFunction"):
        role = stack.physical()[f"{function}Role"]
        deployed = [_document(iam.get_role_policy(RoleName=role, PolicyName=n)["PolicyDocument"])
                    for n in iam.list_role_policies(RoleName=role)["PolicyNames"]]
        expected = [resolve(p["PolicyDocument"], stack.template, world)
                    for p in stack.template["Resources"][f"{function}Role"]["Properties"]["Policies"]]
        assert deployed == expected, function

    # The custom resource bootstrapped a current and a next key (its answer completed the stack).
    assert ("RotateKeysFunction", "Create") in cloud.invoker.invocations
    assert sorted(published_kids(stack).values()) == ["current", "next"]

    # The first tenant and client, with the admin CLI and --stack-name (no hand-written JSON).
    where = ["--stack-name", "authgate-emulated", "--region", "us-east-1"]
    done = cli(cloud, "tenants", "create", "acme", "--currency", "usd", *where)
    assert done.returncode == 0, done.stderr
    done = cli(cloud, "clients", "create", "--client-id", "acme-backend", "--tenant", "acme", "--grant",
               "client_credentials", "--scope", "charges:write", "--scope", "charges:read", "--json", *where)
    assert done.returncode == 0, done.stderr
    secret = json.loads(done.stdout)["client_secret"]
    done = cli(cloud, "clients", "create", "--client-id", "acme-web", "--tenant", "acme", "--type", "public",
               "--grant", "authorization_code", "--redirect-uri", "https://app.example/cb", "--scope",
               "charges:read", *where)
    assert done.returncode == 0, done.stderr

    # A user run on the deployed stage: created, found by the listing, disabled (the UsersByEmail index exists).
    user = ["--tenant", "acme", "--username", "carol", "--json", *where]
    done = cli(cloud, "users", "create", *user, "--email", "carol@acme.example", "--password-stdin",
               stdin="carol-password-1\n")
    assert done.returncode == 0, done.stderr
    listed = cli(cloud, "users", "list", "--tenant", "acme", "--json", *where)
    assert [(u["username"], u["email"]) for u in json.loads(listed.stdout)] == [("carol", "carol@acme.example")]
    disabled = cli(cloud, "users", "disable", *user)
    assert disabled.returncode == 0 and json.loads(disabled.stdout)["disabled"] is True, disabled.stderr

    stage = stack.stage()
    assert {(r.method, r.path) for r in stage.routes} >= {("POST", "/oauth/token"), ("GET", "/charges"),
                                                          ("ANY", "/{proxy+}"), ("GET", "/.well-known/jwks.json")}

    jwks = stage.request("GET", "/.well-known/jwks.json")
    assert jwks.status == 200 and headers(jwks)["content-type"].startswith("application/json")
    assert {k["kid"] for k in body(jwks)["keys"]} == set(published_kids(stack))

    basic = base64.b64encode(f"acme-backend:{secret}".encode()).decode()
    token = stage.request("POST", "/oauth/token", headers={
        "Authorization": f"Basic {basic}", "Content-Type": "application/x-www-form-urlencoded"},
        body=b"grant_type=client_credentials&scope=charges%3Awrite%20charges%3Aread")
    assert token.status == 200, token.body
    issued = body(token)
    assert (issued["token_type"], issued["scope"]) == ("Bearer", "charges:write charges:read")
    header = json.loads(base64.urlsafe_b64decode(issued["access_token"].split(".")[0] + "=="))
    current = next(kid for kid, state in published_kids(stack).items() if state == "current")
    assert header["kid"] == current

    api_key = next(iter(stage.api_keys))
    auth = {"Authorization": f"Bearer {issued['access_token']}", "x-api-key": api_key}
    charge = stage.request("POST", "/charges", headers={**auth, "Content-Type": "application/json"},
                           body=json.dumps({"amount": 1250, "currency": "usd", "description": "first"}).encode())
    assert charge.status == 201, charge.body
    created = body(charge)
    assert (created["amount"], created["currency"]) == (1250, "usd")
    again = stage.request("GET", f"/charges/{created['id']}", headers=auth)
    assert again.status == 200 and body(again)["id"] == created["id"]
    assert "ratelimit" in headers(again)

    # DPoP with server nonces (RFC 9449 8): asked for, then a bound token and a DPoP call to /charges.
    from tests.dpop_support import DpopKey

    key, base = DpopKey(), f"https://{stage.domain}/staging"
    form = {"Authorization": f"Basic {basic}", "Content-Type": "application/x-www-form-urlencoded"}
    cc = b"grant_type=client_credentials&scope=charges%3Aread"
    asked = stage.request("POST", "/oauth/token", headers={**form, "DPoP": key.proof("POST", f"{base}/oauth/token")},
                          body=cc)
    nonce = headers(asked)["dpop-nonce"]
    assert (asked.status, body(asked)["error"]) == (400, "use_dpop_nonce")
    bound = stage.request("POST", "/oauth/token", body=cc, headers={
        **form, "DPoP": key.proof("POST", f"{base}/oauth/token", nonce=nonce)})
    assert (bound.status, body(bound)["token_type"]) == (200, "DPoP"), bound.body
    dpop_token = body(bound)["access_token"]
    url = f"{base}/charges/{created['id']}"
    read = stage.request("GET", f"/charges/{created['id']}", headers={
        "Authorization": f"DPoP {dpop_token}", "x-api-key": api_key,
        "DPoP": key.proof("GET", url, access_token=dpop_token, nonce=nonce)})
    assert read.status == 200, read.body

    missing = stage.request("GET", "/no/such/route", headers={"Accept": "application/json"})
    assert missing.status == 404
    assert headers(missing)["content-type"] == "application/problem+json"
    assert (body(missing)["status"], body(missing)["code"]) == (404, "not_found")
    assert body(missing)["type"] == f"https://{stage.domain}/staging/problems/not_found"
    contract(missing)
    no_key = stage.request("GET", "/charges", headers={"Authorization": f"Bearer {issued['access_token']}"})
    assert (no_key.status, body(no_key)["code"]) == (403, "invalid_api_key")
    contract(no_key)

    login = stage.request("GET", "/oauth/authorize", query=(
        "response_type=code&client_id=acme-web&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&scope=charges%3Aread"
        "&state=s1&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256"))
    assert login.status == 200 and headers(login)["content-type"].startswith("text/html")
    # The operators' console: no session, so to the stage's own authorization endpoint as its client (registered by
    # the deploy's ConsoleClientBootstrap), the sign-in's secrets sealed with the stage's session secret.
    console = stage.request("GET", "/console", headers={"Accept": "text/html"})
    assert console.status == 302, console.body
    assert headers(console)["location"].startswith(f"https://{stage.domain}/staging/oauth/authorize?")
    assert "client_id=authgate-console&" in headers(console)["location"]

    # An https client_id pinned by the administrator (draft-ietf-oauth-client-id-metadata-document 7.2),
    # then deleted, on the deployed stage: its authorization requests are an unknown client's from then on.
    pinned = "https://agent.example/client.json"
    done = cli(cloud, "clients", "create", "--client-id", pinned, "--tenant", "acme", "--type", "public", "--grant",
               "authorization_code", "--redirect-uri", "https://agent.example/cb", "--scope", "charges:read", *where)
    assert done.returncode == 0, done.stderr
    pinned_query = (f"response_type=code&client_id={quote(pinned, safe='')}&redirect_uri="
                    f"{quote('https://agent.example/cb', safe='')}&state=s2&code_challenge="
                    "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256")
    assert stage.request("GET", "/oauth/authorize", query=pinned_query).status == 200
    done = cli(cloud, "clients", "delete", pinned, "--json", *where)
    assert (done.returncode, json.loads(done.stdout)) == (0, {"client_id": pinned, "deleted": True,
                                                              "source": "administrator"}), done.stderr
    gone = stage.request("GET", "/oauth/authorize", query=pinned_query)
    assert gone.status == 400 and "unknown_client" in gone.body.decode()

    # Each admin command's event went through the audit stream to the audit function (the stream's event
    # source invokes it), into the Object Lock bucket: listed and verified (VerifyMac) with --stack-name.
    trail = cli(cloud, "events", "list", "--json", "--since", "1h", *where)
    assert trail.returncode == 0, trail.stderr
    kept = json.loads(trail.stdout)
    caller = cloud.client("sts").get_caller_identity()["Arn"]
    assert [(e["action"], e["target"]["id"], e["actor"]["principal"]) for e in kept] == [
        ("tenant.created", "acme", caller), ("client.registered", "acme-backend", caller),
        ("client.registered", "acme-web", caller), ("user.created", kept[3]["target"]["id"], caller),
        ("user.disabled", kept[3]["target"]["id"], caller), ("client.registered", pinned, caller),
        ("client.deleted", pinned, caller)]
    verified = cli(cloud, "events", "verify", *where)
    assert verified.returncode == 0 and verified.stdout.startswith("INTACT: "), verified.stdout + verified.stderr

    # The schedule's rotation, through Lambda's Invoke API.
    report = cloud.invoke_arn(f"arn:aws:lambda:us-east-1:123456789012:function:{stack.physical()['RotateKeysFunction']}",
                              {"source": "aws.events", "detail-type": "Scheduled Event", "detail": {}})
    assert set(report) >= {"promoted", "created", "retired", "keys"}

    # Teardown: the stack goes, its keys are retired, its data stays.
    physical = stack.physical()
    secrets = cloud.client("secretsmanager")
    signing = [s["Name"] for s in secrets.list_secrets()["SecretList"]
               if s["Name"].startswith("authgate/authgate-emulated/signing/")]
    assert len(signing) == 2
    cloud.client("cloudformation").delete_stack(StackName="authgate-emulated")
    summary = cloud.client("cloudformation").list_stacks()["StackSummaries"]
    assert [s["StackStatus"] for s in summary if s["StackName"] == "authgate-emulated"] == ["DELETE_COMPLETE"]
    # Both custom resources answered their Delete: the signing keys retired, the console's client removed.
    assert [a["Status"] for a in adapters.DELETE_ANSWERS] == ["SUCCESS", "SUCCESS"]
    assert set(published_kids(stack, physical).values()) == {"retired"}
    for name in signing:
        assert "DeletedDate" in secrets.describe_secret(SecretId=name)  # recoverable for 7 days
    for logical in ("TenantsTable", "ClientsTable", "ChargesTable", "UsersTable"):
        assert cloud.client("dynamodb").describe_table(TableName=physical[logical])["Table"]["ItemCount"] >= 0
    assert "DeletedDate" not in secrets.describe_secret(SecretId=physical["SessionSecret"])
    assert cloud.client("logs").describe_log_groups(logGroupNamePrefix=physical["ApiAccessLogGroup"])["logGroups"]
    with pytest.raises(cloud.client("lambda").exceptions.ResourceNotFoundException):
        cloud.client("lambda").get_function(FunctionName=physical["TokenFunction"])


def test_a_kms_stack_signs_with_its_own_tagged_keys_and_retires_them_on_deletion(cloud: EmulatedCloud) -> None:
    stack = deploy(cloud, "authgate-emulated-kms", Stage="production", SigningBackend="kms",
                   SigningAlgorithm="ES256")
    kms = cloud.client("kms")
    keys = [k["KeyId"] for k in kms.list_keys()["Keys"]]
    tagged = {k: {t["TagKey"]: t["TagValue"] for t in kms.list_resource_tags(KeyId=k)["Tags"]} for k in keys}
    # The signing keys (each names its kid); the audit trail's two keys are the template's own.
    ours = [k for k, tags in tagged.items() if tags.get("authgate-stack") == "authgate-emulated-kms"
            and "authgate-kid" in tags]
    assert len(ours) == 4 and all(tagged[k]["authgate-stage"] == "production" for k in ours)
    # ES256 access tokens, and RS256 for ID tokens (OIDC Discovery 1.0 3): a current and a next key of each.
    assert sorted(kms.describe_key(KeyId=k)["KeyMetadata"]["KeySpec"] for k in ours) == [
        "ECC_NIST_P256", "ECC_NIST_P256", "RSA_2048", "RSA_2048"]

    where = ["--stack-name", "authgate-emulated-kms", "--region", "us-east-1"]
    assert cli(cloud, "tenants", "create", "globex", "--currency", "eur", *where).returncode == 0
    done = cli(cloud, "clients", "create", "--client-id", "globex-backend", "--tenant", "globex", "--grant",
               "client_credentials", "--scope", "charges:read", "--json", *where)
    assert done.returncode == 0, done.stderr
    secret = json.loads(done.stdout)["client_secret"]

    stage = stack.stage()
    basic = base64.b64encode(f"globex-backend:{secret}".encode()).decode()
    token = stage.request("POST", "/oauth/token", headers={
        "Authorization": f"Basic {basic}", "Content-Type": "application/x-www-form-urlencoded"},
        body=b"grant_type=client_credentials&scope=charges%3Aread")
    assert token.status == 200, token.body
    access = body(token)["access_token"]
    header = json.loads(base64.urlsafe_b64decode(access.split(".")[0] + "=="))
    assert header["alg"] == "ES256" and header["kid"] in {k["kid"] for k in body(stage.request(
        "GET", "/.well-known/jwks.json"))["keys"]}
    listed = stage.request("GET", "/charges", headers={"Authorization": f"Bearer {access}",
                                                        "x-api-key": next(iter(stage.api_keys))})
    assert listed.status == 200, listed.body

    # The console rotates them: its function invokes the rotation function (Lambda's Invoke, which the real handler
    # answers in this process), whose role alone each key's own policy lets read and retire a key.
    steps = console_rotates(stack, cloud)
    created = [k for k in steps[0]["keys"] if k not in {k for k in steps[0]["before"]}]
    assert steps[0]["page"].startswith("Signing keys rotated Done: promoted ")
    assert len(created) == 2 and {kms.describe_key(KeyId=k)["KeyMetadata"]["KeyState"] for k in created} == {
        "Enabled"}
    assert sorted(kms.describe_key(KeyId=k)["KeyMetadata"]["KeySpec"] for k in created) == ["ECC_NIST_P256",
                                                                                            "RSA_2048"]
    # Once every token a demoted key signed has expired, the next step retires it: its KMS key scheduled for deletion.
    assert "; retired " in steps[1]["page"]
    retired = {k for k, state in steps[1]["states"].items() if state == "retired"}
    assert len(retired) == 2 and {kms.describe_key(KeyId=k)["KeyMetadata"]["KeyState"] for k in retired} == {
        "PendingDeletion"}
    # Each key the function made names, in its own policy, the roles that sign with it and the one that retires it.
    for key in created:
        policy = json.loads(kms.get_key_policy(KeyId=key, PolicyName="default")["Policy"])
        assert {s["Sid"] for s in policy["Statement"]} == {"AccountAdministersThroughIam", "TokenFunctionSigns",
                                                           "RotationReadsAndRetires"}
    # `authgate keys rotate --stack-name` has the same function run its step (nothing may move yet at this time).
    done = cli(cloud, "keys", "rotate", "--json", *where)
    assert done.returncode == 0 and (json.loads(done.stdout)["created"], json.loads(done.stdout)["retired"]) == (
        [], []), done.stderr
    assert cloud.invoker.invocations.count(("RotateKeysFunction", "event")) == 3  # the console twice, the command
    ours = [k for k in ours if k not in retired] + created

    cloud.client("cloudformation").delete_stack(StackName="authgate-emulated-kms")
    assert [a["Status"] for a in adapters.DELETE_ANSWERS] == ["SUCCESS", "SUCCESS"]  # keys, console client
    assert {kms.describe_key(KeyId=k)["KeyMetadata"]["KeyState"] for k in ours} == {"PendingDeletion"}


def console_rotates(stack: DeployedStack, cloud: EmulatedCloud) -> list[dict[str, Any]]:
    """Two "Rotate now" of an owner on the deployed stage's console: the first once the next keys may sign, the second
    once the demoted keys' tokens have all expired. Each step's page text, its KMS keys before and after, and the
    KMS key of each signing key by its state after."""
    from authgate.clock import ManualClock, using
    from authgate.stores.signing_keys import KeyStore
    from tests.functional.authorize_support import page_of
    from tests.functional.console_support import grant, operator_session

    stage = stack.stage()
    with cloud.function_environment(stack.function_environment("ConsoleFunction")):
        grant("olivia", "owner")
        # On a stage (https) the console's cookie carries the __Host- prefix (http.cookies).
        cookie = "__Host-" + operator_session("olivia", "usr_olivia")
        first = max(k.activates_at for k in KeyStore().all())

    def kms_keys() -> dict[str, str]:
        with cloud.function_environment(stack.function_environment("ConsoleFunction")):
            return {k.kms_key_id: k.state for k in KeyStore().all()}

    def rotate() -> dict[str, Any]:
        before = kms_keys()
        asked = stage.request("GET", "/console/keys/rotate", headers={"Accept": "text/html", "Cookie": cookie})
        assert asked.status == 200, asked.body
        binding = [v.split(";", 1)[0] for k, v in asked.headers if k.lower() == "set-cookie"]
        fields = page_of({"statusCode": 200, "body": asked.body.decode()}).hidden()
        done = stage.request("POST", "/console/keys/rotate", body=urlencode(fields).encode(), headers={
            "Accept": "text/html", "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": "; ".join([cookie, *binding])})
        assert done.status == 200, done.body
        page = page_of({"statusCode": 200, "body": done.body.decode()}).text()
        states = kms_keys()
        return {"before": before, "keys": list(states), "states": states,
                "page": page[page.index("Signing keys rotated"):]}

    clock = ManualClock(first + 1)
    with using(clock):
        steps = [rotate()]
        clock.advance(3600)
        steps.append(rotate())
    return steps
