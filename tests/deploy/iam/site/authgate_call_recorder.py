"""Records every AWS call a Lambda function's code makes during the test suite, as IAM requests.

Loaded into every Python process of a test run (pytest and its xdist workers, `authgate serve`
subprocesses, admin commands) by the `sitecustomize` beside it when AUTHGATE_AWS_CALL_LOG_DIR is
set. It wraps botocore's `BaseClient._make_api_call`, the one place every boto3/botocore call
passes (moto intercepts later, at the HTTP layer), so nothing of the project is patched.

A call is attributed to the function whose handler is running in this thread
(authgate_cli.local.functions.running_function); calls outside a handler (test set-up, the
emulator's seeding, admin commands) are not a function's and are not recorded. Each call becomes
the IAM requests AWS authorizes for it -- TransactWriteItems is PutItem/UpdateItem/... per item,
CreateKey with Tags is CreateKey plus TagResource -- with the resource ARN and the condition
context (request tags, the resource's tags at call time, KMS key spec and usage). Unique requests
are appended as JSON lines to one file per process; tests/deploy/iam evaluates them.

KMS is recorded as AWS authorizes it, not as moto does: a key's tags reach authorization only
up to five minutes after they are set (AWS KMS developer guide, "ABAC for AWS KMS"), so a call
on a key younger than KMS_TAG_DELAY is recorded without `aws:ResourceTag/*`; and the key's own
policy travels with the call (`resource_policy`), since a key created with a policy naming a
role needs no IAM grant.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import json
import os
import sys
import threading
import uuid
from typing import Any

ENV = "AUTHGATE_AWS_CALL_LOG_DIR"
ACCOUNT = os.environ.get("MOTO_ACCOUNT_ID", "123456789012")

# Seconds after a tag change during which KMS may still authorize without it.
KMS_TAG_DELAY = 300

_lock = threading.Lock()
_seen: set[str] = set()
_path: str | None = None
_installed = False


def install(directory: str | None = None) -> bool:
    """Start recording into `directory` (default: $AUTHGATE_AWS_CALL_LOG_DIR). Idempotent.

    botocore is patched when it is first imported (never imported here: a process that makes
    no AWS call pays nothing, and what it imports stays as it was).
    """
    global _installed, _path
    directory = directory or os.environ.get(ENV)
    if not directory or _installed:
        return _installed
    os.makedirs(directory, exist_ok=True)
    _path = os.path.join(directory, f"calls-{os.getpid()}-{uuid.uuid4().hex[:8]}.jsonl")
    _installed = True
    if "botocore.client" in sys.modules:
        _patch(sys.modules["botocore.client"])
    else:
        sys.meta_path.insert(0, _PatchOnImport())
    return True


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """Patches botocore.client right after it is executed, whoever imports it."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != "botocore.client":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        original_exec = loader.exec_module

        def exec_module(module: Any) -> None:
            original_exec(module)
            _patch(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def _patch(client_module: Any) -> None:
    BaseClient = client_module.BaseClient
    original = BaseClient._make_api_call

    def _make_api_call(self: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
        function = _running_function()
        if function is None:
            return original(self, operation_name, api_params)
        before = _resource_tags(self, operation_name, api_params)
        try:
            response = original(self, operation_name, api_params)
        except Exception as exc:
            _record(self, function, operation_name, api_params, None, before, _error_code(exc))
            raise
        _record(self, function, operation_name, api_params, response, before, None)
        return response

    BaseClient._make_api_call = _make_api_call


def _error_code(exc: BaseException) -> str:
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        return str((response.get("Error") or {}).get("Code") or type(exc).__name__)
    return type(exc).__name__


def _running_function() -> str | None:
    try:
        from authgate_cli.local.functions import running_function
    except ImportError:
        return None
    return running_function()


def _world() -> str:
    """The stack whose resources the call touches (settings.stack: "local" or a stack name)."""
    try:
        from authgate.settings import get_settings

        return get_settings().stack
    except Exception:  # noqa: BLE001 - an invalid environment is the test's business, not ours
        return "unknown"


# ------------------------------------------------------------------ resources and their tags


def _arn(service: str, region: str, resource: str) -> str:
    return f"arn:aws:{service}:{region}:{ACCOUNT}:{resource}"


def _backend(service: str, region: str) -> Any:
    """moto's backend of this process, when moto serves these calls here (always, in tests)."""
    try:
        if service == "kms":
            from moto.kms.models import kms_backends

            return kms_backends[ACCOUNT][region]
        if service == "secretsmanager":
            from moto.secretsmanager.models import secretsmanager_backends

            return secretsmanager_backends[ACCOUNT][region]
    except Exception:  # noqa: BLE001
        return None
    return None


def _kms_key(region: str, key_id: str) -> dict[str, Any]:
    """The key's ARN, tags as authorization sees them now, attributes and policy (moto's backend)."""
    import time

    backend = _backend("kms", region)
    try:
        key = backend.describe_key(key_id)
        tags = backend.list_resource_tags(key.id).get("Tags", [])
        fresh = time.time() - float(key.creation_date) < KMS_TAG_DELAY
        return {"arn": key.arn, "tags": {} if fresh else {t["TagKey"]: t["TagValue"] for t in tags},
                "attributes": {"kms:KeySpec": key.key_spec, "kms:KeyUsage": key.key_usage,
                               "kms:KeyOrigin": key.origin},
                "policy": key.policy}
    except Exception:  # noqa: BLE001 - an unknown key: AWS authorizes against the ARN asked for
        bare = key_id.rsplit("/", 1)[-1]
        return {"arn": key_id if key_id.startswith("arn:") else _arn("kms", region, f"key/{bare}"), "tags": {}}


def _secret(region: str, secret_id: str) -> tuple[str, dict[str, str]]:
    backend = _backend("secretsmanager", region)
    try:
        described = json.loads(backend.describe_secret(secret_id)) if backend else None
    except Exception:  # noqa: BLE001
        described = None
    if isinstance(described, dict):
        return described["ARN"], {t["Key"]: t["Value"] for t in described.get("Tags") or []}
    if secret_id.startswith("arn:"):
        return secret_id, {}
    # AWS appends 6 random characters to a secret's name in its ARN.
    return _arn("secretsmanager", region, f"secret:{secret_id}-000000"), {}


def _resource_tags(client: Any, operation: str, params: dict[str, Any]) -> dict[str, Any]:
    """What must be read before the call: the resource's tags (a deletion may remove it)."""
    try:
        return _read_tags(client, params)
    except Exception:  # noqa: BLE001 - recording must never change what the code under test sees
        return {}


def _read_tags(client: Any, params: dict[str, Any]) -> dict[str, Any]:
    service = client.meta.service_model.service_name
    region = client.meta.region_name
    if service == "kms" and "KeyId" in params:
        return _kms_key(region, params["KeyId"])
    if service == "secretsmanager" and "SecretId" in params:
        arn, tags = _secret(region, params["SecretId"])
        return {"arn": arn, "tags": tags}
    return {}


def _request_tag_context(tags: dict[str, str]) -> dict[str, Any]:
    context: dict[str, Any] = {f"aws:RequestTag/{k}": v for k, v in tags.items()}
    if tags:
        context["aws:TagKeys"] = sorted(tags)
    return context


def _resource_tag_context(tags: dict[str, str]) -> dict[str, Any]:
    return {f"aws:ResourceTag/{k}": v for k, v in tags.items()}


# ------------------------------------------------------------------ calls -> IAM requests


def iam_requests(service: str, region: str, operation: str, params: dict[str, Any],
                 response: dict[str, Any] | None, before: dict[str, Any]) -> list[dict[str, Any]]:
    """The requests IAM authorizes for one API call: [{action, resource, context}]."""
    if service == "dynamodb":
        return _dynamodb(region, operation, params)
    if service == "kms":
        return _kms(region, operation, params, response, before)
    if service == "secretsmanager":
        return _secretsmanager(region, operation, params, response, before)
    if service == "sqs":
        # SendMessageBatch is authorized as SendMessage (one per queue); the queue from its URL.
        action = {"SendMessageBatch": "SendMessage"}.get(operation, operation)
        name = str(params.get("QueueUrl", "")).rsplit("/", 1)[-1]
        return [{"action": f"sqs:{action}", "resource": _arn("sqs", region, name), "context": {}}]
    if service == "s3":
        return _s3(operation, params)
    if service == "events" and operation == "PutEvents":
        # Authorized on each bus an entry names (a name, or the bus's ARN).
        buses = sorted({str(e.get("EventBusName") or "default") for e in params.get("Entries") or []})
        return [{"action": "events:PutEvents", "context": {},
                 "resource": bus if bus.startswith("arn:") else _arn("events", region, f"event-bus/{bus}")}
                for bus in buses]
    if service == "sesv2" and operation == "SendEmail":
        # SES v2's actions are ses:*; SendEmail is authorized on the identity it sends from: here the From
        # address's domain (the tests verify a domain identity, as a stage's MailIdentity usually is).
        domain = str(params.get("FromEmailAddress", "")).rpartition("@")[2]
        return [{"action": "ses:SendEmail", "resource": _arn("ses", region, f"identity/{domain}"), "context": {}}]
    if service == "lambda" and operation == "Invoke":
        return [{"action": "lambda:InvokeFunction", "resource": _function(region, str(params.get("FunctionName", ""))),
                 "context": {}}]
    return [{"action": f"{service}:{operation}", "resource": "*", "context": {}}]


def _function(region: str, name: str) -> str:
    """The ARN Invoke is authorized on: FunctionName as an ARN, a partial ARN (ACCOUNT:function:NAME) or a name."""
    if name.startswith("arn:"):
        return name
    if ":function:" in name:
        account, _, rest = name.partition(":function:")
        return f"arn:aws:lambda:{region}:{account}:function:{rest}"
    return _arn("lambda", region, f"function:{name}")


# S3 operations authorized under another action name (AWS's S3 actions, "Actions, resources, and
# condition keys for Amazon S3"): listings are actions on the bucket, the rest on the object.
_S3_BUCKET_ACTIONS = {"ListObjectsV2": "ListBucket", "ListObjects": "ListBucket",
                      "ListObjectVersions": "ListBucketVersions"}


def _s3(operation: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    bucket = str(params.get("Bucket", ""))
    if operation in _S3_BUCKET_ACTIONS:
        return [{"action": f"s3:{_S3_BUCKET_ACTIONS[operation]}", "resource": f"arn:aws:s3:::{bucket}", "context": {}}]
    action = {"HeadObject": "GetObject"}.get(operation, operation)
    return [{"action": f"s3:{action}", "resource": f"arn:aws:s3:::{bucket}/{params.get('Key', '')}", "context": {}}]


def _table(region: str, name: str) -> str:
    return name if name.startswith("arn:") else _arn("dynamodb", region, f"table/{name}")


_TRANSACT_WRITE = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem",
                   "ConditionCheck": "ConditionCheckItem"}


def _dynamodb(region: str, operation: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    def req(action: str, table: str) -> dict[str, Any]:
        return {"action": f"dynamodb:{action}", "resource": _table(region, table), "context": {}}

    if operation in ("BatchGetItem", "BatchWriteItem"):
        return [req(operation, table) for table in params.get("RequestItems") or {}]
    if operation == "TransactWriteItems":
        # No dynamodb:TransactWriteItems action exists: each item is authorized as its own write.
        out = []
        for item in params.get("TransactItems") or []:
            for kind, body in item.items():
                out.append(req(_TRANSACT_WRITE[kind], body["TableName"]))
        return out
    if operation == "TransactGetItems":
        return [req("GetItem", item["Get"]["TableName"]) for item in params.get("TransactItems") or []]
    if "TableName" in params:
        if params.get("IndexName"):
            # A Query or Scan of an index is authorized on the index's ARN (table/T/index/I).
            return [{"action": f"dynamodb:{operation}", "context": {},
                     "resource": f"{_table(region, params['TableName'])}/index/{params['IndexName']}"}]
        return [req(operation, params["TableName"])]
    return [{"action": f"dynamodb:{operation}", "resource": "*", "context": {}}]


def _kms(region: str, operation: str, params: dict[str, Any], response: dict[str, Any] | None,
         before: dict[str, Any]) -> list[dict[str, Any]]:
    if operation == "CreateKey":
        tags = {t["TagKey"]: t["TagValue"] for t in params.get("Tags") or []}
        attributes = {"kms:KeySpec": params.get("KeySpec", "SYMMETRIC_DEFAULT"),
                      "kms:KeyUsage": params.get("KeyUsage", "ENCRYPT_DECRYPT"),
                      "kms:KeyOrigin": params.get("Origin", "AWS_KMS")}
        out = [{"action": "kms:CreateKey", "resource": "*", "context": {**_request_tag_context(tags), **attributes}}]
        if tags:
            # Tagging at creation is authorized as kms:TagResource on the new key, by request tags
            # and the new key's attributes; the key has no tags of its own yet.
            arn = (response or {}).get("KeyMetadata", {}).get("Arn") or _arn("kms", region, "key/new")
            out.append({"action": "kms:TagResource", "resource": arn,
                        "context": {**_request_tag_context(tags), **attributes},
                        **_key_policy(params.get("Policy"))})
        return out
    context = {**_resource_tag_context(before.get("tags") or {}), **(before.get("attributes") or {})}
    if operation == "TagResource":
        context.update(_request_tag_context({t["TagKey"]: t["TagValue"] for t in params.get("Tags") or []}))
    return [{"action": f"kms:{operation}", "resource": before.get("arn", "*"), "context": context,
             **_key_policy(before.get("policy"))}]


def _key_policy(policy: str | None) -> dict[str, Any]:
    """The key's own policy, which KMS evaluates with the caller's IAM policies (when one was set)."""
    return {"resource_policy": json.loads(policy)} if policy else {}


def _secretsmanager(region: str, operation: str, params: dict[str, Any], response: dict[str, Any] | None,
                    before: dict[str, Any]) -> list[dict[str, Any]]:
    if operation == "CreateSecret":
        tags = {t["Key"]: t["Value"] for t in params.get("Tags") or []}
        arn = (response or {}).get("ARN") or _arn("secretsmanager", region, f"secret:{params['Name']}-000000")
        context = {**_request_tag_context(tags), "secretsmanager:Name": params["Name"]}
        out = [{"action": "secretsmanager:CreateSecret", "resource": arn, "context": context}]
        if tags:
            out.append({"action": "secretsmanager:TagResource", "resource": arn,
                        "context": _request_tag_context(tags)})
        return out
    arn = (response or {}).get("ARN") or before.get("arn") or "*"
    context = _resource_tag_context(before.get("tags") or {})
    if operation == "TagResource":
        context.update(_request_tag_context({t["Key"]: t["Value"] for t in params.get("Tags") or []}))
    return [{"action": f"secretsmanager:{operation}", "resource": arn, "context": context}]


def _record(client: Any, function: str, operation: str, params: dict[str, Any], response: Any,
            before: dict[str, Any], error: str | None) -> None:
    try:
        service = client.meta.service_model.service_name
        region = client.meta.region_name
        requests = iam_requests(service, region, operation, params,
                                response if isinstance(response, dict) else None, before)
        world = _world()
        test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0] or os.environ.get(
            "AUTHGATE_CALLS_STARTED_BY", "")
        lines = []
        for request in requests:
            entry = {"world": world, "function": function, "operation": f"{service}:{operation}", **request}
            key = json.dumps(entry, sort_keys=True)
            with _lock:
                if key in _seen:
                    continue
                _seen.add(key)
            lines.append(json.dumps({**entry, "test": test, "error": error}, sort_keys=True))
        if lines and _path:
            with _lock, open(_path, "a", encoding="utf-8") as fh:
                fh.write("\n".join(lines) + "\n")
    except Exception as exc:  # noqa: BLE001 - recording must never change what the code under test sees
        import sys

        sys.stderr.write(f"authgate_call_recorder: could not record {operation}: {type(exc).__name__}: {exc}\n")
