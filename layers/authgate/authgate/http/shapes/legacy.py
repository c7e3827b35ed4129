"""The two ad-hoc legacy shapes (contract 2.3 and 2.4), for clients registered with them.

Variant A: {error, message, code, status} with `status` equal to the HTTP status.
Variant B: {success: false, errors: [{field, message, code}]}, always with the real 4xx/5xx
status, never 200 (contract 7.4.2 calls a 200 with success:false a defect). `code` is added to
each entry so that variant-B clients, too, can branch on a stable application code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from authgate.errors.model import ApiError, FieldError

MEDIA_TYPE = "application/json"


def legacy_a_body(error: ApiError) -> dict[str, Any]:
    return {"error": error.code, "message": error.detail, "code": error.code, "status": error.status}


def field_name(field: FieldError) -> str:
    """A variant-B `field`: the dotted member path ("items.0.name"), or the parameter/header name."""
    if field.location in {"query", "header"}:
        return field.name
    parts = [p.replace("~1", "/").replace("~0", "~") for p in field.pointer.split("/")[1:]]
    return ".".join(parts)


def legacy_b_body(error: ApiError) -> dict[str, Any]:
    if error.field_errors:
        errors = [{"field": field_name(f), "message": f.message, "code": error.code} for f in error.field_errors]
    else:
        errors = [{"field": "", "message": error.detail, "code": error.code}]
    return {"success": False, "errors": errors}
