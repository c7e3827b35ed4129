"""http.shapes.jsonapi: JSON:API 1.1 error objects, one per field error."""

from __future__ import annotations

from authgate.errors import ApiError, FieldError
from authgate.http.shapes.jsonapi import MEDIA_TYPE, jsonapi_body
from tests.demo import ISSUER
from tests.events import request


def base(code: str, status: str, title: str, trace: str = "req-1") -> dict[str, object]:
    return {"status": status, "code": code, "title": title,
            "links": {"type": f"{ISSUER}/problems/{code}"}, "meta": {"traceId": trace}}


def test_the_media_type() -> None:
    assert MEDIA_TYPE == "application/vnd.api+json"


def test_one_error_object_for_an_error_without_fields() -> None:
    error = ApiError("invoice_already_paid", "Invoice inv_1 is paid.", internal="never shown")
    assert jsonapi_body(error, request()) == {"jsonapi": {"version": "1.1"}, "errors": [
        {**base("invoice_already_paid", "409", "Invoice already paid"), "detail": "Invoice inv_1 is paid."}]}


def test_one_error_object_per_field_each_with_one_source() -> None:
    fields = (FieldError("/amount", "Must be positive."), FieldError("", "Unknown.", "query", "currency"),
              FieldError("", "Too long.", "header", "Idempotency-Key"))
    body = jsonapi_body(ApiError("validation_failed", "Three members are wrong.", field_errors=fields), request())
    common = base("validation_failed", "422", "Validation failed")
    assert body == {"jsonapi": {"version": "1.1"}, "errors": [
        {**common, "detail": "Must be positive.", "source": {"pointer": "/amount"}},
        {**common, "detail": "Unknown.", "source": {"parameter": "currency"}},
        {**common, "detail": "Too long.", "source": {"header": "Idempotency-Key"}},
    ]}


def test_status_is_a_string_and_no_request_means_no_trace_id() -> None:
    body = jsonapi_body(ApiError("service_unavailable", status=503), None)
    assert body["errors"] == [{**base("service_unavailable", "503", "Service unavailable", trace=""),
                               "detail": "Service unavailable"}]
