"""What moto's CloudFormation lacks, created through moto's own service backends -- and said so.

moto (5.x) deploys most of the transformed template natively (tables, roles, functions, their
versions, the layer, log groups, the EventBridge rule, Lambda permissions, the RestApi and its
Deployment). It has no model for API Gateway stages, usage plans, API keys and usage-plan keys,
CloudWatch alarms, Secrets Manager secrets, Lambda aliases, S3 bucket policies, log subscription
filters and Glue databases and tables; its event bus answers no Ref; it creates a RestApi without importing its OpenAPI Body, a
KMS key without its key spec and usage (and with tags in another shape), and a bucket without its
versioning, Object Lock and public access block. Each
adapter below is a CloudFormation model for one such type: it creates the resource through the
matching moto backend (so the service's own API then shows it), logs one line naming itself, and
answers Ref/GetAtt as CloudFormation documents. Nothing is reported as created that was not:
tests/deploy/test_emulated_deploy.py reads every resource back through its service's API.

Lambda execution in moto needs Docker, which is absent: InProcessLambdaInvoker replaces moto's
invoke with the real handler (functions/<name>/app.py) run in this process, under the environment
CloudFormation resolved for that function (plus the moto endpoint, which a real Lambda would not
need). The custom resource reaches it that way, and answers the ResponseURL over real HTTP.
"""

from __future__ import annotations

import json
import logging
import secrets
import string
import threading
from collections.abc import Callable
from typing import Any, Self

LOG = logging.getLogger("authgate.deploy.adapters")
ACCOUNT = "123456789012"


def _base() -> Any:
    from moto.core.common_models import CloudFormationModel

    return CloudFormationModel


def _tags(props: dict[str, Any]) -> dict[str, str]:
    tags = props.get("Tags") or {}
    if isinstance(tags, list):
        return {t["Key"]: t["Value"] for t in tags}
    return dict(tags)


def _apigateway(account: str, region: str) -> Any:
    from moto.apigateway.models import apigateway_backends

    return apigateway_backends[account][region]


_ANY = "X-AMAZON-APIGATEWAY-ANY-METHOD"


def _complete_import(api: Any, body: dict[str, Any]) -> None:
    """What moto's OpenAPI import drops: the method name ANY, and `security` naming an API-key scheme
    (the template's ApiKeyRequired), which API Gateway imports as apiKeyRequired."""
    schemes = (body.get("components") or {}).get("securitySchemes") or body.get("securityDefinitions") or {}
    api_keys = {name for name, scheme in schemes.items() if scheme.get("type") == "apiKey"}
    by_path = {resource.get_path(): resource for resource in api.resources.values()}
    for path, methods in (body.get("paths") or {}).items():
        resource = by_path[path]
        if _ANY in resource.resource_methods:
            method = resource.resource_methods.pop(_ANY)
            method.http_method = "ANY"
            resource.resource_methods["ANY"] = method
        for name, doc in methods.items():
            method_type = "ANY" if name.upper() == _ANY else name.upper()
            if any(set(entry) & api_keys for entry in doc.get("security") or []):
                resource.resource_methods[method_type].api_key_required = True


def _create_rest_api(props: dict[str, Any], account_id: str, region_name: str, resource_name: str) -> Any:
    backend = _apigateway(account_id, region_name)
    api = backend.create_rest_api(name=props.get("Name", resource_name), description=props.get("Description", ""),
                                  endpoint_configuration=props.get("EndpointConfiguration"))
    if props.get("Body"):
        backend.put_rest_api(api.id, props["Body"], fail_on_warnings=False, mode="overwrite")
        _complete_import(api, props["Body"])
    return api


def _rest_api_attribute(api: Any, attribute: str) -> Any:
    if attribute == "RootResourceId":
        return next(r.id for r in api.resources.values() if r.path_part == "/")
    return api.id


def _create_stage(props: dict[str, Any], account_id: str, region_name: str, resource_name: str) -> str:
    backend = _apigateway(account_id, region_name)
    # moto's Deployment model has no physical id: its Ref resolves to the model itself.
    deployment = props["DeploymentId"]
    deployment_id = deployment if isinstance(deployment, str) else deployment.id
    backend.create_stage(props["RestApiId"], props["StageName"], deployment_id,
                         variables=props.get("Variables"), description=props.get("Description", ""),
                         cacheClusterEnabled=props.get("CacheClusterEnabled"), tags=_tags(props),
                         tracing_enabled=props.get("TracingEnabled"))
    operations = []
    for setting in props.get("MethodSettings") or []:
        prefix = f"{setting['ResourcePath']}/{setting['HttpMethod']}"
        for key, field in (("ThrottlingRateLimit", "throttling/rateLimit"),
                           ("ThrottlingBurstLimit", "throttling/burstLimit"),
                           ("MetricsEnabled", "metrics/enabled"), ("LoggingLevel", "logging/loglevel"),
                           ("DataTraceEnabled", "logging/dataTrace")):
            if key in setting:
                operations.append({"op": "replace", "path": f"{prefix}/{field}", "value": str(setting[key])})
    access = props.get("AccessLogSetting")
    if access:
        operations += [{"op": "replace", "path": "/accessLogSettings/destinationArn", "value": access["DestinationArn"]},
                       {"op": "replace", "path": "/accessLogSettings/format", "value": access["Format"]}]
    if operations:
        backend.update_stage(props["RestApiId"], props["StageName"], operations)
    return str(props["StageName"])


def _create_usage_plan(props: dict[str, Any], account_id: str, region_name: str, resource_name: str) -> str:
    throttle, quota = props.get("Throttle") or {}, props.get("Quota") or {}
    return _apigateway(account_id, region_name).create_usage_plan({
        "name": props.get("UsagePlanName", resource_name), "description": props.get("Description", ""),
        "apiStages": [{"apiId": s["ApiId"], "stage": s["Stage"]} for s in props.get("ApiStages") or []],
        "throttle": {"rateLimit": float(throttle["RateLimit"]), "burstLimit": int(throttle["BurstLimit"])}
        if throttle else None,
        "quota": {"limit": int(quota["Limit"]), "period": quota["Period"]} if quota else None,
        "tags": _tags(props)}).id


def _create_api_key(props: dict[str, Any], account_id: str, region_name: str, resource_name: str) -> str:
    # No Value: API Gateway generates one, as moto does.
    return _apigateway(account_id, region_name).create_api_key({
        "name": props.get("Name", resource_name), "description": props.get("Description", ""),
        "enabled": bool(props.get("Enabled", False)), "tags": _tags(props)}).id


def _create_usage_plan_key(props: dict[str, Any], account_id: str, region_name: str, resource_name: str) -> str:
    _apigateway(account_id, region_name).create_usage_plan_key(
        props["UsagePlanId"], {"keyId": props["KeyId"], "keyType": props["KeyType"]})
    return str(props["KeyId"])


def _create_alarm(props: dict[str, Any], account_id: str, region_name: str, resource_name: str) -> str:
    from moto.cloudwatch.models import cloudwatch_backends

    name = props.get("AlarmName", resource_name)
    cloudwatch_backends[account_id][region_name].put_metric_alarm(
        name=name, namespace=props.get("Namespace"), metric_name=props.get("MetricName"),
        metric_data_queries=None, comparison_operator=props["ComparisonOperator"],
        evaluation_periods=int(props["EvaluationPeriods"]), period=int(props.get("Period", 60)),
        threshold=float(props["Threshold"]), statistic=props.get("Statistic"),
        description=props.get("AlarmDescription"),
        dimensions=[{"Name": d["Name"], "Value": d["Value"]} for d in props.get("Dimensions") or []],
        alarm_actions=props.get("AlarmActions") or [], ok_actions=props.get("OKActions") or [],
        insufficient_data_actions=[], unit=None, actions_enabled=True,
        treat_missing_data=props.get("TreatMissingData"),
        datapoints_to_alarm=int(props["DatapointsToAlarm"]) if "DatapointsToAlarm" in props else None,
        evaluate_low_sample_count_percentile=None, threshold_metric_id=None, rule=None, tags=[],
        extended_statistic=None)
    return str(name)


def _create_secret(props: dict[str, Any], account_id: str, region_name: str, resource_name: str) -> str:
    from moto.secretsmanager.models import secretsmanager_backends

    generate = props.get("GenerateSecretString") or {}
    alphabet = string.ascii_letters + string.digits
    if not generate.get("ExcludePunctuation"):
        alphabet += "!#$%&()*+,-./:;<=>?@[]^_{|}~"
    value = props.get("SecretString") or "".join(
        secrets.choice(alphabet) for _ in range(int(generate.get("PasswordLength", 32))))
    created = secretsmanager_backends[account_id][region_name].create_secret(
        name=props.get("Name", resource_name), secret_string=value, secret_binary=None,
        description=props.get("Description"), tags=[{"Key": k, "Value": v} for k, v in _tags(props).items()],
        kms_key_id=None, client_request_token=None, replica_regions=[], force_overwrite=False)
    return str(json.loads(created)["ARN"])


def _create_alias(props: dict[str, Any], account_id: str, region_name: str, resource_name: str) -> str:
    from moto.awslambda.models import lambda_backends

    alias = lambda_backends[account_id][region_name].create_alias(
        name=props["Name"], function_name=props["FunctionName"], function_version=str(props["FunctionVersion"]),
        description=props.get("Description", ""), routing_config=props.get("RoutingConfig"))
    return str(alias.arn)  # Ref of an alias is its ARN


def _create_kms_key(props: dict[str, Any], account_id: str, region_name: str, resource_name: str) -> Any:
    """moto's AWS::KMS::Key reads Tags as {TagKey, TagValue} (CloudFormation's are {Key, Value}) and
    makes every key a symmetric encryption key: the audit trail's HMAC key needs its KeySpec and KeyUsage."""
    from moto.kms.models import kms_backends

    key = kms_backends[account_id][region_name].create_key(
        policy=json.dumps(props["KeyPolicy"]), key_usage=props.get("KeyUsage", "ENCRYPT_DECRYPT"),
        key_spec=props.get("KeySpec", "SYMMETRIC_DEFAULT"), description=props.get("Description", ""),
        tags=[{"TagKey": k, "TagValue": v} for k, v in _tags(props).items()])
    key.key_rotation_status = bool(props.get("EnableKeyRotation", False))
    return key


def _create_bucket(props: dict[str, Any], account_id: str, region_name: str, resource_name: str) -> Any:
    """moto's AWS::S3::Bucket (name, encryption, tags), then what it leaves out: versioning, Object Lock
    with its default retention, the public access block, ownership controls, the lifecycle rules."""
    from moto.s3.models import FakeBucket, s3_backends

    bucket = FakeBucket.create_from_cloudformation_json(resource_name, {"Properties": props}, account_id, region_name)
    backend = s3_backends[account_id]["aws"]
    if (props.get("VersioningConfiguration") or {}).get("Status"):
        backend.put_bucket_versioning(bucket.name, props["VersioningConfiguration"]["Status"])
    lock = props.get("ObjectLockConfiguration") or {}
    if props.get("ObjectLockEnabled"):
        bucket.object_lock_enabled = True
        retention = (lock.get("Rule") or {}).get("DefaultRetention") or {}
        # Both numbers, as S3's API gives moto (0 for the one not set).
        backend.put_object_lock_configuration(bucket.name, True, retention.get("Mode"),
                                              int(retention.get("Days", 0)), int(retention.get("Years", 0)))
    if props.get("PublicAccessBlockConfiguration"):
        backend.put_public_access_block(bucket.name, props["PublicAccessBlockConfiguration"])
    if props.get("OwnershipControls"):
        backend.put_bucket_ownership_controls(bucket.name, props["OwnershipControls"])
    if props.get("LifecycleConfiguration"):
        backend.put_bucket_lifecycle(bucket.name, [
            {**rule, "Filter": {"Prefix": ""}, "Expiration": {"Days": int(rule["ExpirationInDays"])}}
            for rule in props["LifecycleConfiguration"]["Rules"]])
    return bucket


def _create_bucket_policy(props: dict[str, Any], account_id: str, region_name: str, resource_name: str) -> str:
    """moto enforces a bucket policy's Deny statements but not their conditions: a Deny that only some
    principals meet (the audit bucket's OnlyTheAuditFunctionWrites) would deny everyone. Those are left
    out of what moto enforces, and said so; the unconditional ones are enforced as S3 does."""
    from moto.s3.models import s3_backends

    document = props["PolicyDocument"]
    kept = [s for s in document["Statement"] if not (s.get("Effect") == "Deny" and s.get("Condition"))]
    left = [s.get("Sid", "?") for s in document["Statement"] if s not in kept]
    if left:
        LOG.warning("adapter AdapterS3BucketPolicy: %s of %s not enforced (moto ignores a Deny's condition)",
                    ", ".join(left), props["Bucket"])
    s3_backends[account_id]["aws"].put_bucket_policy(props["Bucket"], json.dumps({**document, "Statement": kept}).encode())
    return str(props["Bucket"])


def _create_subscription_filter(props: dict[str, Any], account_id: str, region_name: str, resource_name: str) -> str:
    from moto.logs.models import logs_backends

    name = props.get("FilterName", resource_name)
    logs_backends[account_id][region_name].put_subscription_filter(
        props["LogGroupName"], name, props["FilterPattern"], props["DestinationArn"], props.get("RoleArn", ""))
    return str(name)


def _create_glue_database(props: dict[str, Any], account_id: str, region_name: str, resource_name: str) -> str:
    from moto.glue.models import glue_backends

    name = props["DatabaseInput"]["Name"]
    glue_backends[account_id][region_name].create_database(name, props["DatabaseInput"])
    return str(name)


def _create_glue_table(props: dict[str, Any], account_id: str, region_name: str, resource_name: str) -> str:
    from moto.glue.models import glue_backends

    name = props["TableInput"]["Name"]
    glue_backends[account_id][region_name].create_table(props["DatabaseName"], name, props["TableInput"])
    return f"{props['DatabaseName']}|{name}"  # CloudFormation's Ref of a Glue table


def _create_event_bus(props: dict[str, Any], account_id: str, region_name: str, resource_name: str) -> Any:
    """moto's AWS::Events::EventBus has no physical id: its Ref would be the model, not the bus's name."""
    from moto.events.models import events_backends

    return events_backends[account_id][region_name].create_event_bus(
        name=props["Name"], event_source_name=None, kms_key_identifier=None, description=props.get("Description"),
        tags=[{"Key": k, "Value": v} for k, v in _tags(props).items()])


def _arn_attribute(model: Any, attribute: str) -> Any:
    return model.arn


# name, CloudFormation type, backend, create(props, account, region, generated name) -> physical id
# (or the created model, for a type answering GetAtt), the property naming the resource, GetAtt.
_ADAPTERS: tuple[tuple[str, str, str, Callable[..., Any], str, Callable[[Any, str], Any] | None], ...] = (
    ("AdapterApiGatewayRestApiWithBody", "AWS::ApiGateway::RestApi", "apigateway (OpenAPI body imported)",
     _create_rest_api, "Name", _rest_api_attribute),
    ("AdapterApiGatewayStage", "AWS::ApiGateway::Stage", "apigateway", _create_stage, "", None),
    ("AdapterApiGatewayUsagePlan", "AWS::ApiGateway::UsagePlan", "apigateway", _create_usage_plan, "", None),
    ("AdapterApiGatewayApiKey", "AWS::ApiGateway::ApiKey", "apigateway", _create_api_key, "", None),
    ("AdapterApiGatewayUsagePlanKey", "AWS::ApiGateway::UsagePlanKey", "apigateway", _create_usage_plan_key, "",
     None),
    ("AdapterCloudWatchAlarm", "AWS::CloudWatch::Alarm", "cloudwatch", _create_alarm, "AlarmName", None),
    ("AdapterSecretsManagerSecret", "AWS::SecretsManager::Secret", "secretsmanager", _create_secret, "Name", None),
    ("AdapterLambdaAlias", "AWS::Lambda::Alias", "lambda", _create_alias, "", None),
    ("AdapterKmsKey", "AWS::KMS::Key", "kms (key spec, usage and tags as CloudFormation gives them)",
     _create_kms_key, "", _arn_attribute),
    ("AdapterS3Bucket", "AWS::S3::Bucket", "s3 (versioning, Object Lock, public access block, lifecycle)",
     _create_bucket, "BucketName", _arn_attribute),
    ("AdapterS3BucketPolicy", "AWS::S3::BucketPolicy", "s3", _create_bucket_policy, "", None),
    ("AdapterLogsSubscriptionFilter", "AWS::Logs::SubscriptionFilter", "logs", _create_subscription_filter,
     "FilterName", None),
    ("AdapterEventsEventBus", "AWS::Events::EventBus", "events (named by its Ref)", _create_event_bus, "Name",
     _arn_attribute),
    ("AdapterGlueDatabase", "AWS::Glue::Database", "glue", _create_glue_database, "", None),
    ("AdapterGlueTable", "AWS::Glue::Table", "glue", _create_glue_table, "", None),
)


def _adapter(name: str, kind: str, backend: str, create: Callable[..., Any], name_property: str,
             attribute: Callable[[Any, str], Any] | None) -> type:
    """A CloudFormation model of moto for `kind`, created by `create` through moto's `backend`.

    A direct subclass of moto's CloudFormationModel: that is how moto finds its models.
    """
    def create_from_cloudformation_json(cls: Any, resource_name: str, cloudformation_json: dict[str, Any],
                                        account_id: str, region_name: str, **kwargs: Any) -> Any:
        created = create(cloudformation_json["Properties"], account_id, region_name, resource_name)
        model = cls.__new__(cls)
        model.created = created
        LOG.warning("adapter %s: %s %s created through moto's %s backend (moto has no CloudFormation "
                    "model for it)", name, kind, model.physical_resource_id, backend)
        return model

    namespace = {
        "__doc__": f"{kind} created through moto's {backend} backend.",
        "cloudformation_type": staticmethod(lambda: kind),
        "cloudformation_name_type": staticmethod(lambda: name_property),
        "create_from_cloudformation_json": classmethod(create_from_cloudformation_json),
        "physical_resource_id": property(lambda self: self.created if isinstance(self.created, str)
                                         else getattr(self.created, "physical_resource_id", None) or getattr(self.created, "name", None)
                                         or self.created.id),
        "has_cfn_attr": classmethod(lambda cls, attr: attribute is not None),
        "get_cfn_attribute": lambda self, attr: attribute(self.created, attr) if attribute else None,
    }
    return type(name, (_base(),), namespace)


def define() -> list[type]:
    """The adapter models (made on first use: moto is imported only by the tests that deploy)."""
    return [_adapter(*spec) for spec in _ADAPTERS]


_lock = threading.Lock()
_installed: list[type] = []


def install() -> list[type]:
    """Register the adapters with moto's CloudFormation (idempotent); returns them."""
    with _lock:
        if not _installed:
            from moto.cloudformation import parsing

            _installed.extend(define())
            parsing.get_model_list.cache_clear()
            parsing.get_model_map.cache_clear()
            parsing.get_name_type_map.cache_clear()
            mapped = parsing.get_model_map()
            missing = [a.__name__ for a in _installed if mapped.get(a.cloudformation_type()) is not a]
            if missing:
                raise RuntimeError(f"moto did not take the adapters {missing}")
            _version_attributes()
        return list(_installed)


def _version_attributes() -> None:
    """moto's AWS::Lambda::Version answers no GetAtt: Version (the number an alias points at) is
    added, as CloudFormation documents it."""
    from moto.awslambda.models import LambdaVersion

    LOG.warning("adapter AdapterLambdaVersionAttributes: AWS::Lambda::Version answers GetAtt Version "
                "(moto's model has no attributes)")
    LambdaVersion.has_cfn_attr = classmethod(lambda cls, attr: attr == "Version")  # type: ignore[method-assign, assignment]
    LambdaVersion.get_cfn_attribute = lambda self, attr: self.version  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------- Lambda


# The answers custom resources gave to Delete requests, in order (the tests read them).
DELETE_ANSWERS: list[dict[str, Any]] = []


class _AnswerReceiver:
    """A loopback HTTP endpoint taking one custom-resource answer (a PUT of JSON)."""

    def __enter__(self) -> Self:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        answers: list[dict[str, Any]] = []
        self._answers = answers
        self._event = threading.Event()
        done = self._event

        class Handler(BaseHTTPRequestHandler):
            def do_PUT(self) -> None:
                answers.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(200)
                self.end_headers()
                done.set()

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_port}/answer"
        return self

    def answer(self, timeout: float) -> dict[str, Any]:
        if not self._event.wait(timeout):
            raise TimeoutError("the custom resource sent no answer")
        return self._answers[0]

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def install_custom_resource_delete(invoke: Callable[[str, dict[str, Any]], Any]) -> Callable[[], None]:
    """moto sends custom resources no Delete request when their stack is deleted (CloudFormation
    does), and deletes a stack's resources in no particular order: AdapterCustomResourceDelete
    keeps what each custom resource was created with, deletes custom resources first (as
    CloudFormation's reverse dependency order does) and sends each the Delete request through
    `invoke(function_arn, event)`."""
    from moto.cloudformation.custom_model import CustomModel

    original_create = CustomModel.create_from_cloudformation_json

    def create(cls: Any, resource_name: str, cloudformation_json: dict[str, Any], account_id: str,
               region_name: str, **kwargs: Any) -> Any:
        resource = original_create.__func__(cls, resource_name, cloudformation_json, account_id,  # type: ignore[attr-defined]
                                            region_name, **kwargs)
        resource.adapter_request = {"ServiceToken": cloudformation_json["Properties"]["ServiceToken"],
                                    "ResourceProperties": cloudformation_json["Properties"],
                                    "StackId": kwargs["StackId"], "ResourceType": kwargs["ResourceType"]}
        return resource

    def delete(resource: Any, account_id: str, region_name: str) -> None:
        request = resource.adapter_request
        LOG.warning("adapter AdapterCustomResourceDelete: Delete request to %s for %s (moto sends none)",
                    request["ServiceToken"].rsplit(":", 1)[-1], resource.logical_id)
        # moto's ResponseURL endpoint cannot take an answer for a stack being deleted: the answer
        # goes to a one-request HTTP receiver here instead, and deletion fails unless it says SUCCESS.
        with _AnswerReceiver() as receiver:
            invoke(request["ServiceToken"], {
                "RequestType": "Delete", "ServiceToken": request["ServiceToken"], "ResponseURL": receiver.url,
                "StackId": request["StackId"], "RequestId": resource.request_id,
                "LogicalResourceId": resource.logical_id, "PhysicalResourceId": resource.physical_resource_id,
                "ResourceType": request["ResourceType"], "ResourceProperties": request["ResourceProperties"]})
            answer = receiver.answer(timeout=30)
        DELETE_ANSWERS.append(answer)
        if answer.get("Status") != "SUCCESS":
            raise RuntimeError(f"custom resource {resource.logical_id} failed to delete: {answer.get('Reason')}")

    from moto.cloudformation.parsing import ResourceMap

    original_delete = ResourceMap.delete

    def delete_stack(resource_map: Any) -> None:
        # RetainExceptOnCreate is Retain for every operation but the one that created the resource
        # (CloudFormation user guide, DeletionPolicy attribute); moto knows only "Retain". A stack
        # deleted here was created, so its resources are kept.
        for definition in resource_map._resource_json_map.values():
            if definition.get("DeletionPolicy") == "RetainExceptOnCreate":
                definition["DeletionPolicy"] = "Retain"
        # CloudFormation deletes in reverse dependency order, so a custom resource goes before the
        # function it calls; moto deletes in no order. Custom resources first, then the rest.
        for logical, parsed in list(resource_map._parsed_resources.items()):
            definition = resource_map._resource_json_map.get(logical, {})
            if isinstance(parsed, CustomModel) and definition.get("DeletionPolicy") != "Retain":
                resource_map._delete_resource(parsed, definition)
                resource_map._parsed_resources.pop(logical)
        original_delete(resource_map)

    CustomModel.create_from_cloudformation_json = classmethod(create)  # type: ignore[method-assign, assignment]
    CustomModel.delete = delete  # type: ignore[attr-defined]
    ResourceMap.delete = delete_stack  # type: ignore[method-assign]

    def restore() -> None:
        CustomModel.create_from_cloudformation_json = original_create  # type: ignore[method-assign]
        del CustomModel.delete  # type: ignore[attr-defined]
        ResourceMap.delete = original_delete  # type: ignore[method-assign]

    return restore


class InProcessLambdaInvoker:
    """moto's LambdaFunction.invoke, replaced: the real handler runs here with the function's
    resolved environment (Docker, which moto would run it in, is absent)."""

    def __init__(self, run: Callable[[str, dict[str, str], dict[str, Any], bool], Any]) -> None:
        # run(logical_id, environment, event, by_a_function) -> result; by_a_function: the Invoke came from a
        # function's own client (the runtime's User-Agent, authgate.aws), which waits for the answer.
        self.run = run
        self.invocations: list[tuple[str, str]] = []

    def install(self) -> Callable[[], None]:
        from moto.awslambda.models import LambdaFunction

        original = LambdaFunction.invoke
        invoker = self

        def invoke(fn: Any, body: str, request_headers: Any, response_headers: Any) -> Any:
            logical = getattr(fn, "logical_resource_id", None) or fn.function_name
            event = json.loads(body) if isinstance(body, str) and body else {}
            kind = event.get("RequestType") or "event"
            invoker.invocations.append((logical, kind))
            LOG.warning("adapter InProcessLambdaInvoker: %s (%s) runs in-process, not in Docker", logical, kind)
            caller = str((request_headers or {}).get("User-Agent", ""))
            result = invoker.run(logical, dict(fn.environment_vars or {}), event, caller.startswith("authgate "))
            return json.dumps(result).encode("utf-8")

        LambdaFunction.invoke = invoke  # type: ignore[method-assign]

        def restore() -> None:
            LambdaFunction.invoke = original  # type: ignore[method-assign]

        return restore
