"""JSON:API 1.1 error documents (application/vnd.api+json), section "Error Objects".

One error object per field error (JSON:API reports each problem separately), else one for the
whole request. `status` is the HTTP status as a string; `source` holds exactly one of
`pointer` / `parameter` / `header`; `links.type` is the problem-type page; `meta.traceId`
joins the response to the logs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from authgate.issuer import problem_type

if TYPE_CHECKING:
    from authgate.errors.model import ApiError, FieldError
    from authgate.http.request import Request

MEDIA_TYPE = "application/vnd.api+json"


def _source(field: FieldError) -> dict[str, str]:
    if field.location == "query":
        return {"parameter": field.name}
    if field.location == "header":
        return {"header": field.name}
    return {"pointer": field.pointer}


def jsonapi_body(error: ApiError, request: Request | None) -> dict[str, Any]:
    trace_id = request.request_id if request else ""
    base = {
        "status": str(error.status),
        "code": error.code,
        "title": error.title,
        "links": {"type": problem_type(request, error.code)},
        "meta": {"traceId": trace_id},
    }
    if error.field_errors:
        errors = [{**base, "detail": f.message, "source": _source(f)} for f in error.field_errors]
    else:
        errors = [{**base, "detail": error.detail}]
    return {"jsonapi": {"version": "1.1"}, "errors": errors}
