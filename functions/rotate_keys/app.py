"""Lambda handler: signing-key rotation on the EventBridge schedule and at the console's request, and the keys'
custom resource.

A scheduled event runs one lifecycle step (authgate.tokens.rotation.rotate), recorded in the audit trail
when a key moved (key.rotated, by the system; docs/audit.md). The console's "Rotate now" (and `authgate keys
rotate` on a deployed stack) invokes this function with {"authgate": "rotate-now"} (authgate.tokens.rotation_request):
the same one step, its report answered as JSON and not recorded here, since the caller records key.rotated itself,
naming who asked. The template's `SigningKeysBootstrap`
custom resource calls the same function (authgate.custom_resource): on Create and Update it makes sure
a current and a next key exist (a fresh stack can sign its first token at once); on Delete (the stack
is deleted) it retires every key of the stack and schedules deletion of the private keys (recoverable
for 7 days), so a deleted stack leaves no live signing key behind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from authgate import audit, custom_resource
from authgate.logs import get_logger
from authgate.tokens.rotation import destroy_all, ensure_keys, rotate
from authgate.tokens.rotation_request import is_request

PHYSICAL_ID = "authgate-signing-keys"


def _ensure(properties: Mapping[str, Any]) -> None:
    ensure_keys()


def _retire(properties: Mapping[str, Any]) -> None:
    retired = destroy_all()
    get_logger().info("signing keys retired with the stack", extra={"retired": len(retired)})


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    if custom_resource.is_request(event):
        return custom_resource.handled(event, PHYSICAL_ID, "signing keys",
                                       {"Create": _ensure, "Update": _ensure, "Delete": _retire})
    asked = is_request(event)
    report = rotate().as_dict()
    moved = {k: v for k, v in report.items() if k != "keys"}
    # Nested: "created" would collide with a LogRecord attribute.
    get_logger().info("signing keys rotated", extra={"rotation": moved, "trigger": "request" if asked else "schedule"})
    if not asked and (report["promoted"] or report["created"] or report["retired"]):
        audit.record("key.rotated", "", actor=audit.SYSTEM, target=audit.Party("key", "signing-keys"),
                     details={"promoted": report["promoted"], "demoted": report["demoted"],
                              "created": report["created"], "retired": report["retired"]})
    return report
