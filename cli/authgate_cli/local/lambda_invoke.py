"""Lambda's Invoke API for the local stack's own functions, answered by their handlers in this process.

A function of the local stack may invoke another, as on a stage (the console's "Rotate now" invokes the rotation
function: authgate.tokens.rotation_request). The local stack has no Lambda functions in moto, and moto would run one
in Docker: `answer_in_process()` makes moto's Invoke (server or in-process, `mock_aws`) answer a function of the
template named by its logical id (as the local stack names its tables), or by an ARN ending in it, by running that
function's handler here, in the stack's one environment, attributed to that function (functions.load_handler). The
answer is Lambda's: the handler's result as JSON, or an unhandled error's type and message with X-Amz-Function-Error
set. A function moto itself knows (an emulated deployment's) is invoked as moto invokes it.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

_lock = threading.Lock()
_installed: list[bool] = []


def answer_in_process() -> None:
    """Install the answer into moto's Lambda backend (idempotent, process-wide)."""
    with _lock:
        if _installed:
            return
        from moto.awslambda.exceptions import UnknownFunctionException
        from moto.awslambda.models import LambdaBackend

        original = LambdaBackend.invoke

        def invoke(self: Any, function_name: str, qualifier: str | None, body: Any, headers: Any,
                   response_headers: Any) -> Any:
            try:
                self.get_function(function_name, qualifier)
            except UnknownFunctionException:
                logical = local_function(function_name)
                if logical is None:
                    raise
                return answer(logical, body, response_headers)
            return original(self, function_name, qualifier, body, headers, response_headers)

        LambdaBackend.invoke = invoke  # type: ignore[method-assign]
        _installed.append(True)


def local_function(function_name: str) -> str | None:
    """The template's logical id a FunctionName (a name, or an ARN, with no qualifier) names, if any."""
    from authgate_cli.local import template

    name = function_name.rsplit(":function:", 1)[-1]
    return name if name in template.function_names().values() else None


def answer(logical: str, body: Any, response_headers: dict[str, str]) -> bytes:
    """What Lambda answers a RequestResponse Invoke of `logical` with `body` (its event, JSON)."""
    from authgate_cli.local.context import LambdaContext
    from authgate_cli.local.functions import load_handler

    event = json.loads(body) if body else {}
    try:
        result = load_handler(logical)(event, LambdaContext(logical, timeout_seconds=60))
    except Exception as exc:  # reported the way Lambda reports an unhandled error
        logging.getLogger("authgate.local").exception("%s failed", logical)
        response_headers["x-amz-function-error"] = "Unhandled"
        payload = json.dumps({"errorMessage": str(exc), "errorType": type(exc).__name__}).encode()
    else:
        payload = json.dumps(result).encode()
    response_headers["Content-Length"] = str(len(payload))
    return payload
