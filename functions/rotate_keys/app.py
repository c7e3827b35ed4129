"""Lambda handler: signing-key rotation on the EventBridge schedule, and key bootstrap on deploy.

A scheduled event runs one lifecycle step (authgate.tokens.rotation.rotate). The template's
`SigningKeysBootstrap` custom resource calls the same function once at deploy time so a fresh
stack has a current key before the first token request, not a schedule period later.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from authgate.logs import get_logger
from authgate.tokens.rotation import ensure_keys, rotate


def _answer_cloudformation(event: dict[str, Any], status: str, reason: str = "") -> None:
    """PUT the custom-resource result to the pre-signed ResponseURL (CloudFormation protocol)."""
    body = json.dumps({
        "Status": status, "Reason": reason or status,
        "PhysicalResourceId": event.get("PhysicalResourceId") or "authgate-signing-keys",
        "StackId": event["StackId"], "RequestId": event["RequestId"], "LogicalResourceId": event["LogicalResourceId"],
    }).encode("utf-8")
    request = urllib.request.Request(event["ResponseURL"], data=body, method="PUT",
                                     headers={"Content-Type": "", "Content-Length": str(len(body))})
    with urllib.request.urlopen(request, timeout=10):
        pass


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    logger = get_logger()
    if "RequestType" in event and "ResponseURL" in event:
        try:
            if event["RequestType"] in ("Create", "Update"):
                ensure_keys()
            _answer_cloudformation(event, "SUCCESS")
        except Exception as exc:  # the stack must hear about a failure, or it hangs for an hour
            logger.exception("signing key bootstrap failed")
            _answer_cloudformation(event, "FAILED", f"signing key bootstrap failed: {type(exc).__name__}")
        return {"bootstrapped": True}
    report = rotate().as_dict()
    # Nested: "created" would collide with a LogRecord attribute.
    logger.info("signing keys rotated", extra={"rotation": {k: v for k, v in report.items() if k != "keys"}})
    return report
