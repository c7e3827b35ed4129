"""An emulated AWS account: moto in server mode on a free port, CloudFormation deploying the SAM-
transformed template, and the deployed API's stage served by the real handlers in this process.

    cloud = EmulatedCloud.start()
    stack = cloud.deploy("authgate-emulated", {"Stage": "staging"})   # package, transform, create_stack
    stage = stack.stage()                                              # routes from the deployed RestApi
    reply = stage.request("GET", "/.well-known/jwks.json")

Deploying follows `sam deploy`: the function and layer directories are zipped and uploaded to an
S3 bucket (as `sam package` does), the template's code locations point there, SAM's transform
runs (samtranslator of the SAM CLI in .venv-sam), and the result is created as a CloudFormation
stack through the CloudFormation API over HTTP. Resource types moto lacks are created by the
adapters of tests/deploy/adapters.py.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import threading
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from authgate_cli.local import stack as local_stack
from authgate_cli.local.template import ApiRoute
from tests.deploy import adapters
from tests.deploy.transform import ACCOUNT, ARTIFACT_BUCKET, REGION, World, packaged, transformed

REPO_ROOT = Path(__file__).resolve().parents[2]
_env_lock = threading.RLock()


def _zip(directory: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(directory.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                archive.write(path, path.relative_to(directory))
    return buffer.getvalue()


@dataclass
class EmulatedCloud:
    endpoint: str
    server: Any
    invoker: adapters.InProcessLambdaInvoker
    _restore: Any = None
    worlds_dir: Path | None = None
    # The thread whose function invocation holds the process environment (function_environment).
    _holder: threading.Thread | None = None

    @classmethod
    def start(cls, worlds_dir: Path | None = None) -> EmulatedCloud:
        from authgate_cli.local import embedded

        adapters.install()
        aws = embedded.start()
        # CloudFormation hands custom resources a ResponseURL on moto's own host and port.
        os.environ["MOTO_PORT"] = aws.endpoint.rsplit(":", 1)[1]
        import moto.settings

        moto.settings.moto_server_host = lambda: "http://127.0.0.1"  # type: ignore[assignment]
        cloud = cls(aws.endpoint, aws, adapters.InProcessLambdaInvoker(lambda *a: None), worlds_dir=worlds_dir)
        cloud.invoker.run = cloud.run_invoked
        restores = [cloud.invoker.install(), adapters.install_custom_resource_delete(cloud.invoke_arn)]
        cloud._restore = lambda: [restore() for restore in restores]
        return cloud

    def invoke_arn(self, function_arn: str, event: dict[str, Any]) -> Any:
        """Lambda's Invoke API (moto over HTTP), which the in-process invoker answers."""
        response = self.client("lambda").invoke(FunctionName=function_arn, Payload=json.dumps(event).encode())
        return json.loads(response["Payload"].read() or b"null")

    def stop(self) -> None:
        if self._restore:
            self._restore()
        self.server.stop()
        os.environ.pop("MOTO_PORT", None)

    def client(self, service: str) -> Any:
        import boto3

        return boto3.client(service, region_name=REGION, endpoint_url=self.endpoint,
                            aws_access_key_id="testing", aws_secret_access_key="testing", aws_session_token="testing")

    # -------------------------------------------------------------------------- functions

    @contextmanager
    def function_environment(self, environment: dict[str, str], *, nested: bool = False) -> Iterator[None]:
        """The process environment of one Lambda invocation: what CloudFormation resolved, plus the
        moto endpoint; every cache is dropped so each invocation starts as a new container. A `nested`
        invocation (one function invoking another and waiting for its answer) takes the environment from
        its caller, who holds it, and gives the caller's back when it ends."""
        with contextlib.nullcontext() if nested else _env_lock:
            saved, holder = dict(os.environ), self._holder
            self._holder = threading.current_thread()
            try:
                for name in list(os.environ):
                    if name.startswith(("AUTHGATE_", "POWERTOOLS_")):
                        del os.environ[name]
                local_stack.apply({**{k: str(v) for k, v in environment.items()},
                                   "AUTHGATE_AWS_ENDPOINT_URL": self.endpoint,
                                   "AWS_REGION": REGION, "AWS_DEFAULT_REGION": REGION,
                                   "POWERTOOLS_TRACE_DISABLED": "true"})
                yield
            finally:
                self._holder = holder
                os.environ.clear()
                os.environ.update(saved)
                local_stack.reset_caches()

    def run_function(self, logical: str, environment: dict[str, str], event: dict[str, Any], *,
                     nested: bool = False) -> Any:
        from authgate_cli.local.context import LambdaContext
        from authgate_cli.local.functions import load_handler

        with self.function_environment(environment, nested=nested):
            return load_handler(logical)(event, LambdaContext(logical, timeout_seconds=60))

    def run_invoked(self, logical: str, environment: dict[str, str], event: dict[str, Any], by_a_function: bool) -> Any:
        """A function invoked through Lambda (moto's threads). Invoked by a function's own client while that
        function's invocation holds the environment, it is that function's synchronous Invoke (the console asking
        the rotation function for a step): it runs nested, while its caller waits for the answer. Any other
        invocation (a custom resource's, the test's own) waits for the environment as the test's requests do."""
        holder = self._holder
        nested = by_a_function and holder is not None and holder is not threading.current_thread()
        return self.run_function(logical, environment, event, nested=nested)

    # -------------------------------------------------------------------------- deploy

    def package(self) -> None:
        """`sam package`: every function's and the layer's directory, zipped, in the artifact bucket."""
        s3 = self.client("s3")
        if ARTIFACT_BUCKET not in {b["Name"] for b in s3.list_buckets().get("Buckets", [])}:
            s3.create_bucket(Bucket=ARTIFACT_BUCKET)
        from authgate_cli.local import template as reader

        for name, resource in reader.load()["Resources"].items():
            props = resource.get("Properties") or {}
            source = props.get("CodeUri") or props.get("ContentUri")
            if resource["Type"] in ("AWS::Serverless::Function", "AWS::Serverless::LayerVersion") and source:
                s3.put_object(Bucket=ARTIFACT_BUCKET, Key=f"{name}.zip", Body=_zip(REPO_ROOT / source))

    def deploy(self, stack_name: str, parameters: dict[str, str], *, timeout: float = 120) -> DeployedStack:
        """Package, transform and create the stack; wait until CloudFormation says it is complete."""
        self.package()
        body = transformed(packaged())
        s3 = self.client("s3")
        s3.put_object(Bucket=ARTIFACT_BUCKET, Key=f"{stack_name}.template.json", Body=json.dumps(body).encode())
        cfn = self.client("cloudformation")
        cfn.create_stack(StackName=stack_name,
                         TemplateURL=f"https://s3.amazonaws.com/{ARTIFACT_BUCKET}/{stack_name}.template.json",
                         Parameters=[{"ParameterKey": k, "ParameterValue": v} for k, v in parameters.items()],
                         Capabilities=["CAPABILITY_IAM"])
        deadline = time.monotonic() + timeout
        while True:
            status = cfn.describe_stacks(StackName=stack_name)["Stacks"][0]["StackStatus"]
            if status.endswith(("_COMPLETE", "_FAILED")):
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"stack {stack_name} still {status} after {timeout:.0f}s")
            time.sleep(0.1)
        deployed = DeployedStack(self, stack_name, status, body, parameters)
        if self.worlds_dir is not None:
            self.worlds_dir.mkdir(parents=True, exist_ok=True)
            (self.worlds_dir / f"{stack_name}.json").write_text(json.dumps(deployed.world().to_json()))
        return deployed


@dataclass
class DeployedStack:
    cloud: EmulatedCloud
    name: str
    status: str
    template: dict[str, Any]
    parameters: dict[str, str]
    _resources: list[dict[str, Any]] = field(default_factory=list)

    def resources(self) -> list[dict[str, Any]]:
        listed = self.cloud.client("cloudformation").describe_stack_resources(StackName=self.name)["StackResources"]
        # moto lists a resource whose Condition is false as an entry with no logical id or type;
        # CloudFormation neither creates nor lists it.
        return [r for r in listed if "LogicalResourceId" in r]

    def physical(self) -> dict[str, str]:
        return {r["LogicalResourceId"]: r["PhysicalResourceId"] for r in self.resources() if r.get("PhysicalResourceId")}

    def outputs(self) -> dict[str, str]:
        stack = self.cloud.client("cloudformation").describe_stacks(StackName=self.name)["Stacks"][0]
        return {o["OutputKey"]: o["OutputValue"] for o in stack.get("Outputs", [])}

    def function_environment(self, logical: str) -> dict[str, str]:
        name = self.physical()[logical]
        config = self.cloud.client("lambda").get_function_configuration(FunctionName=name)
        return dict((config.get("Environment") or {}).get("Variables") or {})

    def world(self) -> World:
        """How this stack's references resolved (for the IAM check of calls made against it)."""
        refs, attrs = {}, {}
        for logical, physical in self.physical().items():
            kind = self.template["Resources"].get(logical, {}).get("Type", "")
            refs[logical] = physical
            if kind == "AWS::DynamoDB::Table":
                attrs[f"{logical}.Arn"] = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{physical}"
            elif kind == "AWS::Lambda::Function":
                attrs[f"{logical}.Arn"] = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{physical}"
            elif kind == "AWS::Logs::LogGroup":
                attrs[f"{logical}.Arn"] = f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:{physical}:*"
            elif kind == "AWS::SQS::Queue":  # moto's physical id is the queue's URL
                attrs[f"{logical}.Arn"] = f"arn:aws:sqs:{REGION}:{ACCOUNT}:{physical.rsplit('/', 1)[-1]}"
            elif kind == "AWS::IAM::Role":
                # The principal a KMS key's policy names (the rotation function's environment).
                attrs[f"{logical}.Arn"] = f"arn:aws:iam::{ACCOUNT}:role/{physical}"
            elif kind == "AWS::S3::Bucket":  # the audit trail's (a bucket's ARN names no region or account)
                attrs[f"{logical}.Arn"] = f"arn:aws:s3:::{physical}"
            elif kind == "AWS::Events::EventBus":
                attrs[f"{logical}.Arn"] = f"arn:aws:events:{REGION}:{ACCOUNT}:event-bus/{physical}"
            elif kind == "AWS::Kinesis::Stream":
                attrs[f"{logical}.Arn"] = f"arn:aws:kinesis:{REGION}:{ACCOUNT}:stream/{physical}"
            elif kind == "AWS::KMS::Key":
                attrs[f"{logical}.Arn"] = f"arn:aws:kms:{REGION}:{ACCOUNT}:key/{physical}"
        return World(stack=self.name, refs=refs, attrs=attrs, parameters=dict(self.parameters))

    # -------------------------------------------------------------------------- the API stage

    def routes(self) -> tuple[str, list[ApiRoute]]:
        """The deployed RestApi's id and its routes (resource path, method, function, API key)."""
        apigateway = self.cloud.client("apigateway")
        by_function_name = {physical: logical for logical, physical in self.physical().items()}
        api_id = self.physical()["AuthgateApi"]
        routes = []
        for resource in apigateway.get_resources(restApiId=api_id, limit=500)["items"]:
            for method in (resource.get("resourceMethods") or {}):
                detail = apigateway.get_method(restApiId=api_id, resourceId=resource["id"], httpMethod=method)
                uri = (detail.get("methodIntegration") or {}).get("uri", "")
                # ...:function:<name>[:<alias>]/invocations (the API invokes the `live` alias).
                function_name = (uri.split(":function:", 1)[1].split("/", 1)[0].split(":", 1)[0]
                                 if ":function:" in uri else "")
                routes.append(ApiRoute(function=by_function_name.get(function_name, function_name), event="",
                                       path=resource["path"], method=method.upper(),
                                       api_key_required=bool(detail.get("apiKeyRequired"))))
        return api_id, routes

    def stage(self) -> DeployedStage:
        from authgate_cli.local.routing import Router
        from authgate_cli.local.server import Emulator

        api_id, routes = self.routes()
        stage_name = self.parameters.get("Stage", "staging")
        apigateway = self.cloud.client("apigateway")
        physical = self.physical()
        plan_names = {physical[p]: p for p in ("StandardUsagePlan", "PremiumUsagePlan") if p in physical}
        keys: dict[str, str] = {}
        for plan_id, logical in plan_names.items():
            for key in apigateway.get_usage_plan_keys(usagePlanId=plan_id)["items"]:
                value = apigateway.get_api_key(apiKey=key["id"], includeValue=True)["value"]
                keys[value] = logical
        domain = f"{api_id}.execute-api.{REGION}.amazonaws.com"
        emulator = Emulator(Router(routes), issuer=f"https://{domain}/{stage_name}", api_keys=keys,
                            stage=stage_name, load=self._handler)
        return DeployedStage(emulator, domain, keys, routes)

    def _handler(self, logical: str) -> Any:
        def run(event: dict[str, Any], context: Any) -> Any:
            return self.cloud.run_function(logical, self.function_environment(logical), event)

        return run


@dataclass
class DeployedStage:
    emulator: Any
    domain: str
    api_keys: dict[str, str]
    routes: list[ApiRoute]

    def request(self, method: str, path: str, *, headers: dict[str, str] | None = None, body: bytes = b"",
                query: str = "") -> Any:
        from authgate_cli.local.events import HttpRequest

        sent = [("Host", self.domain), *((headers or {}).items())]
        return self.emulator.handle(HttpRequest(method, path, query, sent, body, source_ip="198.51.100.20"))
