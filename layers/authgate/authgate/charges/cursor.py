"""Opaque, tamper-evident pagination cursors for GET /charges.

A cursor is base64url(JSON {"v": 1, "before": <last charge id>}) "." base64url(check), where
check is 12 bytes of sha256 over the tenant and the payload. The check catches truncation,
editing and a cursor carried to another tenant. It is not a secret MAC and need not be: the
tenant always comes from the access token, and the position is validated as a charge id, so a
forged cursor can only select a starting point within the caller's own charges.
"""

from __future__ import annotations

import binascii
import hashlib
import hmac
import json

from authgate import base64url, strict_json
from authgate.charges.model import is_charge_id
from authgate.errors import ApiError, FieldError

MAX_CURSOR_LENGTH = 200


def _check(tenant_id: str, payload: bytes) -> bytes:
    return hashlib.sha256(b"authgate-charges-cursor\x00" + tenant_id.encode() + b"\x00" + payload).digest()[:12]


def encode(tenant_id: str, before: str) -> str:
    payload = json.dumps({"v": 1, "before": before}, separators=(",", ":")).encode()
    return f"{base64url.encode(payload)}.{base64url.encode(_check(tenant_id, payload))}"


def _invalid() -> ApiError:
    detail = "The cursor is not valid; pass next_cursor from a previous page unchanged."
    return ApiError("invalid_request", detail,
                    field_errors=(FieldError("", detail, location="query", name="cursor"),))


def decode(tenant_id: str, cursor: str) -> str:
    """The charge id a cursor continues after, or 400 invalid_request (parameter cursor)."""
    if not cursor or len(cursor) > MAX_CURSOR_LENGTH or cursor.count(".") != 1:
        raise _invalid()
    head, tail = cursor.split(".")
    try:
        payload, check = base64url.decode(head), base64url.decode(tail)
        if not hmac.compare_digest(check, _check(tenant_id, payload)):
            raise _invalid()
        data = strict_json.loads(payload.decode("utf-8"))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise _invalid() from None
    before = data.get("before") if isinstance(data, dict) and data.get("v") == 1 else None
    if not isinstance(before, str) or not is_charge_id(before):
        raise _invalid()
    return before
