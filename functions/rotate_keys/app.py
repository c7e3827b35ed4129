"""Lambda handler: signing-key rotation on the EventBridge schedule, and the keys' custom resource.

A scheduled event runs one lifecycle step (authgate.tokens.rotation.rotate), recorded in the audit trail
when a key moved (key.rotated, by the system; docs/audit.md). The template's
`SigningKeysBootstrap` custom resource calls the same function: on Create and Update it makes
sure a current and a next key exist (a fresh stack can sign its first token at once); on
Delete (the stack is deleted) it retires every key of the stack and schedules deletion of the
private keys (recoverable for 7 days), so a deleted stack leaves no live signing key behind.

The answer to CloudFormation is a PUT to the pre-signed ResponseURL. It is retried with
backoff: a lost answer would leave the stack waiting until the resource's ServiceTimeout.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

from authgate import audit
from authgate.logs import get_logger
from authgate.tokens.rotation import destroy_all, ensure_keys, rotate

PHYSICAL_ID = "authgate-signing-keys"
# Attempts at delivering the answer, and the pause before each retry (seconds).
ANSWER_ATTEMPTS = 5
ANSWER_BACKOFF = (0.5, 1.0, 2.0, 4.0)


def _answer_cloudformation(event: dict[str, Any], status: str, reason: str = "") -> None:
    """PUT the custom-resource result to the pre-signed ResponseURL (CloudFormation protocol)."""
    body = json.dumps({
        "Status": status, "Reason": reason or status,
        "PhysicalResourceId": event.get("PhysicalResourceId") or PHYSICAL_ID,
        "StackId": event["StackId"], "RequestId": event["RequestId"], "LogicalResourceId": event["LogicalResourceId"],
    }).encode("utf-8")
    # The pre-signed S3 URL is signed for an empty Content-Type.
    request = urllib.request.Request(event["ResponseURL"], data=body, method="PUT",
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


def _custom_resource(event: dict[str, Any]) -> dict[str, Any]:
    logger = get_logger()
    request_type = event["RequestType"]
    try:
        if request_type in ("Create", "Update"):
            ensure_keys()
        elif request_type == "Delete":
            retired = destroy_all()
            logger.info("signing keys retired with the stack", extra={"retired": len(retired)})
    except Exception as exc:  # the stack must hear about a failure, or it waits until ServiceTimeout
        logger.exception("signing key custom resource failed", extra={"request_type": request_type})
        _answer_cloudformation(event, "FAILED", f"signing keys {request_type.lower()} failed: {type(exc).__name__}")
        return {"status": "FAILED"}
    _answer_cloudformation(event, "SUCCESS")
    return {"status": "SUCCESS"}


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    if "RequestType" in event and "ResponseURL" in event:
        return _custom_resource(event)
    report = rotate().as_dict()
    moved = {k: v for k, v in report.items() if k != "keys"}
    # Nested: "created" would collide with a LogRecord attribute.
    get_logger().info("signing keys rotated", extra={"rotation": moved})
    if report["promoted"] or report["created"] or report["retired"]:
        audit.record("key.rotated", "", actor=audit.SYSTEM, target=audit.Party("key", "signing-keys"),
                     details={"promoted": report["promoted"], "demoted": report["demoted"],
                              "created": report["created"], "retired": report["retired"]})
    return report
