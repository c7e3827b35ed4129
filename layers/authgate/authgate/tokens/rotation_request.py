"""The rotation function asked for one lifecycle step now: the console's "Rotate now", and `authgate keys rotate` on a
deployed stack (docs/tokens-and-keys.md).

On a stage whose keys are in KMS, each key's own policy names the rotation function's role, and no other function's,
to read a new key's public half and to retire a key; so the console does not rotate in its own process, on any
backend: it invokes the rotation function (Lambda Invoke, RequestResponse) with `REQUEST`, the function runs one step
(tokens.rotation.rotate) and answers its report (`RotationReport.as_dict`), which `ask` reads back.

The request says nothing but what it asks. Whoever may invoke the function (the console's role, by IAM; EventBridge,
by its rule) runs at most one step, which the schedule runs anyway and which moves only what the overlap rule allows;
nobody is named by it. Who asked is named by the caller's own audit event (key.rotated: the console's operator, or
the command's AWS principal), recorded once, after the answer; the function records nothing for this request.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from authgate.tokens.rotation import RotationReport

# The whole payload of the console's request, as the function receives it.
REQUEST = {"authgate": "rotate-now"}


class RotationUnanswered(Exception):
    """The rotation function gave no report (refused, throttled, failed, timed out): the message says how, for the
    log; whether a step ran is unknown."""


def is_request(event: Any) -> bool:
    """Whether `event` is the console's request (exactly `REQUEST`)."""
    return bool(event == REQUEST)


def ask() -> RotationReport:
    """One step, run by the rotation function (settings.rotate_keys_function); its report."""
    from botocore.exceptions import BotoCoreError, ClientError

    from authgate import aws
    from authgate.settings import get_settings
    from authgate.tokens.rotation import RotationReport

    function = get_settings().rotate_keys_function
    try:
        answer = aws.lambda_().invoke(FunctionName=function, InvocationType="RequestResponse",
                                      Payload=json.dumps(REQUEST).encode())
        payload = answer["Payload"].read()
    except ClientError as exc:
        raise RotationUnanswered(f"Invoke {function}: {exc.response.get('Error', {}).get('Code')}") from exc
    except BotoCoreError as exc:
        raise RotationUnanswered(f"Invoke {function}: {type(exc).__name__}") from exc
    if answer.get("FunctionError"):
        raise RotationUnanswered(f"{function} failed ({answer['FunctionError']}): {_error_type(payload)}")
    try:
        return RotationReport.from_dict(json.loads(payload))
    except (ValueError, KeyError, TypeError) as exc:
        raise RotationUnanswered(f"{function} answered no rotation report: {type(exc).__name__}") from exc


def _error_type(payload: bytes) -> str:
    """The errorType of a function error's payload (its message stays out of our log: it is the function's)."""
    try:
        return str(json.loads(payload).get("errorType"))
    except (ValueError, AttributeError):
        return "no error document"
