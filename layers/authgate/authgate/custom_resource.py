"""A function's answer to a CloudFormation custom resource: what was asked, done, then said to the stack.

A template's custom resource (the signing keys' bootstrap, the console's client) invokes its function with a
RequestType (Create, Update, Delete) and a pre-signed ResponseURL; the function does the work and PUTs the result
there. The answer is retried with backoff: a lost one would leave the stack waiting until the resource's
ServiceTimeout. A failure is answered FAILED with the exception's type, never its text (nothing internal reaches the
stack's events).
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any

from authgate.logs import get_logger

# Attempts at delivering the answer, and the pause before each retry (seconds).
ANSWER_ATTEMPTS = 5
ANSWER_BACKOFF = (0.5, 1.0, 2.0, 4.0)


def is_request(event: Mapping[str, Any]) -> bool:
    """Whether the event is a custom resource's request (not an API Gateway event nor a schedule's)."""
    return "RequestType" in event and "ResponseURL" in event


def handled(event: Mapping[str, Any], physical_id: str, what: str,
            actions: Mapping[str, Callable[[Mapping[str, Any]], None]]) -> dict[str, Any]:
    """Run the action of the event's RequestType (none: nothing to do), then answer CloudFormation."""
    request_type = str(event["RequestType"])
    action = actions.get(request_type)
    try:
        if action is not None:
            action(event.get("ResourceProperties") or {})
    except Exception as exc:  # noqa: BLE001 - the stack must hear of any failure, or it waits until ServiceTimeout
        get_logger().exception(f"{what} custom resource failed", extra={"request_type": request_type})
        answer(event, physical_id, "FAILED", f"{what} {request_type.lower()} failed: {type(exc).__name__}")
        return {"status": "FAILED"}
    answer(event, physical_id, "SUCCESS")
    return {"status": "SUCCESS"}


def answer(event: Mapping[str, Any], physical_id: str, status: str, reason: str = "") -> None:
    """PUT the custom-resource result to the pre-signed ResponseURL (CloudFormation protocol)."""
    body = json.dumps({
        "Status": status, "Reason": reason or status,
        "PhysicalResourceId": event.get("PhysicalResourceId") or physical_id,
        "StackId": event["StackId"], "RequestId": event["RequestId"], "LogicalResourceId": event["LogicalResourceId"],
    }).encode("utf-8")
    # The pre-signed S3 URL is signed for an empty Content-Type.
    request = urllib.request.Request(str(event["ResponseURL"]), data=body, method="PUT",
                                     headers={"Content-Type": "", "Content-Length": str(len(body))})
    for attempt in range(ANSWER_ATTEMPTS):
        try:
            with urllib.request.urlopen(request, timeout=10):
                return
        except urllib.error.HTTPError as exc:
            # A 4xx will not change on retry (an expired or malformed URL); a 5xx may.
            if exc.code < 500 or attempt == ANSWER_ATTEMPTS - 1:
                raise
        except (urllib.error.URLError, TimeoutError, ConnectionError):
            if attempt == ANSWER_ATTEMPTS - 1:
                raise
        time.sleep(ANSWER_BACKOFF[min(attempt, len(ANSWER_BACKOFF) - 1)])
