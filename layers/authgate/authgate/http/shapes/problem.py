"""RFC 9457 problem details (application/problem+json), the default shape of API routes.

Members: `type` (absolute, dereferenceable: <issuer>/problems/<code>), `title`, `status`
(equal to the HTTP status, 3.1.2), `detail`, `instance` (the request path, a URI reference),
and the extensions `code` (stable application code), `traceId` (= x-request-id) and `errors[]`.
Each field error carries `detail` plus where it points: `pointer` (RFC 6901, into the JSON
body), or `parameter` (query) or `header`, as RFC 9457 3's validation example and JSON:API's
`source` do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from authgate.issuer import problem_type

if TYPE_CHECKING:
    from authgate.errors.model import ApiError, FieldError
    from authgate.http.request import Request

MEDIA_TYPE = "application/problem+json"


def field_error_member(field: FieldError) -> dict[str, str]:
    """One errors[] entry: `detail` and exactly one of pointer / parameter / header."""
    if field.location == "query":
        return {"detail": field.message, "parameter": field.name}
    if field.location == "header":
        return {"detail": field.message, "header": field.name}
    return {"detail": field.message, "pointer": field.pointer}


def problem_body(error: ApiError, request: Request | None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": problem_type(request, error.code),
        "title": error.title,
        "status": error.status,
        "detail": error.detail,
        "instance": request.path if request else "/",
        "code": error.code,
        "traceId": request.request_id if request else "",
    }
    if error.field_errors:
        body["errors"] = [field_error_member(f) for f in error.field_errors]
    return body
