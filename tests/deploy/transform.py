"""template.yaml as CloudFormation sees it: packaged, SAM-transformed, intrinsics resolved.

- `packaged()`: the template with every local CodeUri/ContentUri replaced by an S3 location, as
  `sam package` does before CloudFormation ever sees it;
- `transformed()`: SAM's own transform of it (samtranslator from the SAM CLI in .venv-sam, run by
  tests/deploy/sam_translate.py), cached per template content;
- `resolve(value, world)`: Ref, Fn::GetAtt, Fn::Sub, Fn::Join, Fn::If, Fn::Select, Fn::Split and
  pseudo parameters resolved to concrete values for one World (the resources a stack resolved
  to). Written here rather than borrowed: moto's resolver needs a deployed ResourceMap, and the
  IAM check must resolve the local test world (tables named by logical id) the same way.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from authgate_cli.local import template as template_reader

REPO_ROOT = Path(__file__).resolve().parents[2]
SAM_PYTHON = REPO_ROOT / ".venv-sam" / "bin" / "python"
CACHE_DIR = REPO_ROOT / "test-artifacts" / "sam-transform"
ARTIFACT_BUCKET = "authgate-artifacts"
ACCOUNT = "123456789012"
REGION = "us-east-1"


class TransformError(RuntimeError):
    """SAM's transform could not run or rejected the template."""


def packaged(source: dict[str, Any] | None = None) -> dict[str, Any]:
    """The template with local code locations replaced by S3 ones, as `sam package` leaves it."""
    out = copy.deepcopy(source if source is not None else template_reader.load())
    for name, resource in out["Resources"].items():
        props = resource.get("Properties") or {}
        if resource["Type"] == "AWS::Serverless::Function" and isinstance(props.get("CodeUri"), str):
            props["CodeUri"] = f"s3://{ARTIFACT_BUCKET}/{name}.zip"
        if resource["Type"] == "AWS::Serverless::LayerVersion" and isinstance(props.get("ContentUri"), str):
            props["ContentUri"] = f"s3://{ARTIFACT_BUCKET}/{name}.zip"
    return out


def transformed(source: dict[str, Any] | None = None, parameters: dict[str, Any] | None = None, *,
                cache: bool = True) -> dict[str, Any]:
    """SAM's transform of the packaged template (cached in test-artifacts/ by content, unless `cache` is
    False: with AlwaysDeploy the Deployment's id depends on when the transform ran, not only on content)."""
    document = json.dumps(packaged(source), sort_keys=True)
    arguments = json.dumps(parameters or {}, sort_keys=True)
    digest = hashlib.sha256((document + arguments).encode()).hexdigest()[:24]
    cached = CACHE_DIR / f"{digest}.json"
    if cache and cached.exists():
        return json.loads(cached.read_text())
    if not SAM_PYTHON.exists():
        raise TransformError(f"{SAM_PYTHON} is missing: run `make sam-venv` (SAM CLI, whose samtranslator "
                             "transforms the template)")
    env = {**os.environ, "AWS_DEFAULT_REGION": REGION, "AWS_REGION": REGION, "SAM_CLI_TELEMETRY": "0"}
    env.pop("PYTHONPATH", None)  # .venv-sam runs alone: not the test run's recorder, not our packages
    done = subprocess.run([str(SAM_PYTHON), str(Path(__file__).with_name("sam_translate.py")), arguments],
                          input=document, capture_output=True, text=True, env=env, timeout=120, check=False)
    if done.returncode != 0:
        raise TransformError(f"SAM transform failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(done.stdout)
    tmp.replace(cached)
    return result


# ------------------------------------------------------------------------------- resolution


@dataclass(frozen=True)
class World:
    """What a stack's references resolve to: its name, parameters, and each resource's Ref and attributes.

    The local test world ("local") has no CloudFormation: its tables are named by their logical
    ids (tests/conftest.py, `authgate serve`); an emulated deployment records its own world.
    """

    stack: str
    refs: dict[str, str] = field(default_factory=dict)
    attrs: dict[str, str] = field(default_factory=dict)
    parameters: dict[str, str] = field(default_factory=dict)
    region: str = REGION
    account: str = ACCOUNT

    @property
    def pseudo(self) -> dict[str, str]:
        return {"AWS::Partition": "aws", "AWS::Region": self.region, "AWS::AccountId": self.account,
                "AWS::StackName": self.stack, "AWS::URLSuffix": "amazonaws.com",
                "AWS::StackId": f"arn:aws:cloudformation:{self.region}:{self.account}:stack/{self.stack}/0"}

    def to_json(self) -> dict[str, Any]:
        return {"stack": self.stack, "refs": self.refs, "attrs": self.attrs, "parameters": self.parameters,
                "region": self.region, "account": self.account}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> World:
        return cls(**data)


# The SES identity of the local world: what the tests that send mail through SES (moto) verify and send from.
LOCAL_MAIL_IDENTITY = "mail.demo.example"


def local_world(source: dict[str, Any] | None = None) -> World:
    """The world of the functional and e2e tests: tables and functions named by logical id, stack "local", MailIdentity
    LOCAL_MAIL_IDENTITY (the tests that send through SES send from it; the others send no mail)."""
    doc = source if source is not None else template_reader.load()
    refs: dict[str, str] = {}
    attrs: dict[str, str] = {}
    for name, resource in doc["Resources"].items():
        if resource["Type"] == "AWS::DynamoDB::Table":
            refs[name] = name
            attrs[f"{name}.Arn"] = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{name}"
        elif resource["Type"] == "AWS::SQS::Queue":  # named by logical id too (authgate_cli.local.template)
            refs[name] = f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/{name}"
            attrs[f"{name}.Arn"] = f"arn:aws:sqs:{REGION}:{ACCOUNT}:{name}"
        elif resource["Type"] == "AWS::S3::Bucket":  # what the tests create (tests/audit_support.py)
            refs[name] = template_reader.bucket_name(name)
            attrs[f"{name}.Arn"] = f"arn:aws:s3:::{refs[name]}"
        elif resource["Type"] == "AWS::Events::EventBus":
            refs[name] = name
            attrs[f"{name}.Arn"] = f"arn:aws:events:{REGION}:{ACCOUNT}:event-bus/{name}"
        elif resource["Type"] == "AWS::Kinesis::Stream":
            refs[name] = name
            attrs[f"{name}.Arn"] = f"arn:aws:kinesis:{REGION}:{ACCOUNT}:stream/{name}"
        elif resource["Type"] == "AWS::Serverless::Function":
            # The role SAM makes for it, as the IAM check names its principal in this world; the function named
            # by logical id, as another function invokes it (authgate_cli.local.lambda_invoke).
            attrs[f"{name}Role.Arn"] = f"arn:aws:iam::{ACCOUNT}:role/local-{name}Role"
            refs[name] = name
            attrs[f"{name}.Arn"] = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}"
    return World(stack="local", refs=refs, attrs=attrs, parameters={"MailIdentity": LOCAL_MAIL_IDENTITY})


class Unresolved(str):
    """A reference the world does not know: resolves to a value no real resource has."""


NO_VALUE = object()


def _parameter_value(name: str, doc: dict[str, Any], world: World) -> Any:
    if name in world.parameters:
        return world.parameters[name]
    declared = (doc.get("Parameters") or {}).get(name)
    if declared is not None and "Default" in declared:
        return declared["Default"]
    return Unresolved(f"unresolved:{name}")


def _ref(name: str, doc: dict[str, Any], world: World) -> Any:
    if name == "AWS::NoValue":
        return NO_VALUE
    if name in world.pseudo:
        return world.pseudo[name]
    if name in (doc.get("Parameters") or {}):
        return _parameter_value(name, doc, world)
    return world.refs.get(name, Unresolved(f"unresolved:{name}"))


def condition(name: str, doc: dict[str, Any], world: World) -> bool:
    return bool(resolve((doc.get("Conditions") or {})[name], doc, world))


def _sub(text: str, variables: dict[str, Any], doc: dict[str, Any], world: World) -> str:
    out, i = [], 0
    while i < len(text):
        start = text.find("${", i)
        if start < 0:
            out.append(text[i:])
            break
        out.append(text[i:start])
        end = text.index("}", start)
        name = text[start + 2:end]
        if name.startswith("!"):  # ${!Literal}
            out.append("${" + name[1:] + "}")
        elif name in variables:
            out.append(str(variables[name]))
        elif "." in name and name.split(".", 1)[0] not in world.pseudo and not name.startswith("AWS::"):
            out.append(str(world.attrs.get(name, Unresolved(f"unresolved:{name}"))))
        else:
            out.append(str(_ref(name, doc, world)))
        i = end + 1
    return "".join(out)


def resolve(value: Any, doc: dict[str, Any], world: World) -> Any:
    """`value` with every intrinsic function resolved for `world` (AWS::NoValue entries dropped)."""
    if isinstance(value, list):
        items = [resolve(v, doc, world) for v in value]
        return [v for v in items if v is not NO_VALUE]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        (key, arg), = value.items()
        if key == "Ref":
            return _ref(arg, doc, world)
        if key == "Fn::GetAtt":
            logical, attribute = (arg.split(".", 1) if isinstance(arg, str) else arg)
            return world.attrs.get(f"{logical}.{attribute}", Unresolved(f"unresolved:{logical}.{attribute}"))
        if key == "Fn::Sub":
            text, variables = (arg, {}) if isinstance(arg, str) else (arg[0], resolve(arg[1], doc, world))
            return _sub(text, variables, doc, world)
        if key == "Fn::Join":
            return str(arg[0]).join(str(v) for v in resolve(arg[1], doc, world))
        if key == "Fn::If":
            branch = arg[1] if condition(arg[0], doc, world) else arg[2]
            return resolve(branch, doc, world)
        if key == "Fn::Select":
            return resolve(arg[1], doc, world)[int(resolve(arg[0], doc, world))]
        if key == "Fn::Split":
            return str(resolve(arg[1], doc, world)).split(arg[0])
        if key == "Fn::Equals":
            left, right = (resolve(v, doc, world) for v in arg)
            return str(left) == str(right)
        if key == "Fn::Not":
            return not resolve(arg[0], doc, world)
        if key == "Fn::And":
            return all(resolve(v, doc, world) for v in arg)
        if key == "Fn::Or":
            return any(resolve(v, doc, world) for v in arg)
        if key == "Condition":
            return condition(arg, doc, world)
    resolved = {k: resolve(v, doc, world) for k, v in value.items()}
    return {k: v for k, v in resolved.items() if v is not NO_VALUE}
