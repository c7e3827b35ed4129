"""Lambda handler: scheduled signing-key rotation (EventBridge)."""

from __future__ import annotations

from typing import Any


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return {"rotated": False}
