"""Reads template.yaml, the single source of truth for routes, tables and gateway responses.

The emulator and the tests derive everything from here; nothing keeps a second copy of a route
list or a table schema.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
TEMPLATE_PATH = REPO_ROOT / "template.yaml"


class _CfnLoader(yaml.SafeLoader):
    """SafeLoader that understands CloudFormation's short-form intrinsic functions."""


def _intrinsic(tag: str):
    name = "Ref" if tag == "Ref" else f"Fn::{tag}"

    def construct(loader: yaml.SafeLoader, node: yaml.Node) -> dict[str, Any]:
        if isinstance(node, yaml.ScalarNode):
            value: Any = loader.construct_scalar(node)
            if tag == "GetAtt":
                value = value.split(".", 1)
        elif isinstance(node, yaml.SequenceNode):
            value = loader.construct_sequence(node, deep=True)
        else:
            value = loader.construct_mapping(node, deep=True)
        return {name: value}

    return construct


for _tag in ("Ref", "Sub", "GetAtt", "If", "Not", "Equals", "And", "Or", "Join", "Select",
             "Split", "FindInMap", "ImportValue", "Base64", "Condition", "GetAZs", "Cidr"):
    _CfnLoader.add_constructor(f"!{_tag}", _intrinsic(_tag))


@lru_cache(maxsize=4)
def load(path: Path = TEMPLATE_PATH) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=_CfnLoader)


def resources(kind: str, path: Path = TEMPLATE_PATH) -> dict[str, dict[str, Any]]:
    return {name: res for name, res in load(path)["Resources"].items() if res.get("Type") == kind}


@dataclass(frozen=True)
class ApiRoute:
    function: str        # logical id, e.g. "TokenFunction"
    event: str           # event name, e.g. "TokenPost"
    path: str            # API Gateway resource path, e.g. "/charges/{id}"
    method: str          # upper case, or "ANY"
    api_key_required: bool


def api_routes(path: Path = TEMPLATE_PATH) -> list[ApiRoute]:
    """Every Api event of every function, in template order (local.routing ranks them as API Gateway does)."""
    routes = []
    for fn_name, fn in resources("AWS::Serverless::Function", path).items():
        for event_name, event in (fn["Properties"].get("Events") or {}).items():
            if event.get("Type") != "Api":
                continue
            props = event["Properties"]
            routes.append(ApiRoute(
                function=fn_name,
                event=event_name,
                path=props["Path"],
                method=props["Method"].upper(),
                api_key_required=bool((props.get("Auth") or {}).get("ApiKeyRequired", False)),
            ))
    return routes


def function_dir(function: str, path: Path = TEMPLATE_PATH) -> Path:
    """The CodeUri folder of a function, e.g. TokenFunction -> functions/token."""
    fn = resources("AWS::Serverless::Function", path)[function]
    return (path.parent / fn["Properties"]["CodeUri"]).resolve()


def function_names(path: Path = TEMPLATE_PATH) -> dict[str, str]:
    """Short names (the CodeUri folder name, e.g. "token") -> logical ids."""
    return {function_dir(name, path).name: name for name in resources("AWS::Serverless::Function", path)}


def table_definitions(path: Path = TEMPLATE_PATH) -> dict[str, dict[str, Any]]:
    """CreateTable arguments for every AWS::DynamoDB::Table, named by logical id."""
    out = {}
    for name, res in resources("AWS::DynamoDB::Table", path).items():
        props = res["Properties"]
        args: dict[str, Any] = {
            "TableName": name,
            "AttributeDefinitions": props["AttributeDefinitions"],
            "KeySchema": props["KeySchema"],
            "BillingMode": props.get("BillingMode", "PAY_PER_REQUEST"),
        }
        for index_kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            if props.get(index_kind):
                args[index_kind] = props[index_kind]
        out[name] = {"create": args, "ttl": (props.get("TimeToLiveSpecification") or {}).get("AttributeName")}
    return out


def table_environment(path: Path = TEMPLATE_PATH) -> dict[str, str]:
    """Global environment variables that name tables (`!Ref XTable`), resolved to local names."""
    env = load(path)["Globals"]["Function"]["Environment"]["Variables"]
    tables = resources("AWS::DynamoDB::Table", path)
    return {k: v["Ref"] for k, v in env.items() if isinstance(v, dict) and v.get("Ref") in tables}


def bucket_name(logical: str) -> str:
    """The name an S3 bucket of the template has where nothing names it (moto, the tests): its logical
    id in lower case (bucket names take no capitals)."""
    return logical.lower()


# moto's account: a local queue's URL and ARN name it (moto answers under any host).
LOCAL_ACCOUNT = "123456789012"


def queue_url(name: str, region: str = "us-east-1") -> str:
    """The local URL of queue `name` (a logical id)."""
    return f"https://sqs.{region}.amazonaws.com/{LOCAL_ACCOUNT}/{name}"


def queue_definitions(path: Path = TEMPLATE_PATH, region: str = "us-east-1") -> dict[str, dict[str, str]]:
    """CreateQueue attributes for every AWS::SQS::Queue, named by logical id, dead-letter queues first."""
    queues = resources("AWS::SQS::Queue", path)
    out: dict[str, dict[str, str]] = {}
    for name in sorted(queues, key=lambda n: "RedrivePolicy" in queues[n]["Properties"]):
        props = queues[name]["Properties"]
        attributes = {key: str(props[key]) for key in ("VisibilityTimeout", "MessageRetentionPeriod") if key in props}
        redrive = props.get("RedrivePolicy")
        if redrive:
            target = redrive["deadLetterTargetArn"]["Fn::GetAtt"]
            dead = target[0] if isinstance(target, list) else str(target).split(".")[0]
            attributes["RedrivePolicy"] = json.dumps({
                "deadLetterTargetArn": f"arn:aws:sqs:{region}:{LOCAL_ACCOUNT}:{dead}",
                "maxReceiveCount": int(redrive["maxReceiveCount"])})
        out[name] = attributes
    return out


def queue_environment(path: Path = TEMPLATE_PATH, region: str = "us-east-1") -> dict[str, str]:
    """Global environment variables that name queues (`!Ref XQueue`), resolved to local URLs."""
    env = load(path)["Globals"]["Function"]["Environment"]["Variables"]
    queues = resources("AWS::SQS::Queue", path)
    return {k: queue_url(v["Ref"], region) for k, v in env.items() if isinstance(v, dict) and v.get("Ref") in queues}


def create_queues(sqs: Any, path: Path = TEMPLATE_PATH, region: str = "us-east-1") -> None:
    """Create every queue of the template (idempotent: CreateQueue with the same attributes returns it)."""
    for name, attributes in queue_definitions(path, region).items():
        sqs.create_queue(QueueName=name, Attributes=attributes)
