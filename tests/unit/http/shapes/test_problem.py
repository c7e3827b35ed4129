"""http.shapes.problem: RFC 9457 problem details, members and field errors (3.1, 3)."""

from __future__ import annotations

import pytest

from authgate.errors import ApiError, FieldError
from authgate.http.shapes.problem import MEDIA_TYPE, field_error_member, problem_body
from tests.demo import ISSUER
from tests.events import request


def test_the_media_type() -> None:
    assert MEDIA_TYPE == "application/problem+json"


def test_every_member_of_one_error() -> None:
    error = ApiError("invoice_locked", "Invoice inv_1 is locked.", internal="never shown")
    assert problem_body(error, request(path="/charges/ch_1")) == {
        "type": f"{ISSUER}/problems/invoice_locked", "title": "Invoice locked", "status": 403,
        "detail": "Invoice inv_1 is locked.", "instance": "/charges/ch_1", "code": "invoice_locked",
        "traceId": "req-1"}


def test_the_status_member_is_the_errors_status_even_when_overridden() -> None:
    body = problem_body(ApiError("service_unavailable", status=504), request())
    assert (body["status"], body["detail"]) == (504, "Service unavailable")


def test_without_a_request_the_instance_is_the_root_and_no_trace_id() -> None:
    body = problem_body(ApiError("internal_error"), None)
    assert body == {"type": f"{ISSUER}/problems/internal_error", "title": "Internal error", "status": 500,
                    "detail": "Internal error", "instance": "/", "code": "internal_error", "traceId": ""}


@pytest.mark.parametrize(("field", "member"), [
    (FieldError("/amount", "Must be positive."), {"detail": "Must be positive.", "pointer": "/amount"}),
    (FieldError("", "Whole body."), {"detail": "Whole body.", "pointer": ""}),
    (FieldError("", "Unknown.", "query", "currency"), {"detail": "Unknown.", "parameter": "currency"}),
    (FieldError("", "Too long.", "header", "Idempotency-Key"), {"detail": "Too long.", "header": "Idempotency-Key"}),
])
def test_each_field_error_points_at_exactly_one_place(field: FieldError, member: dict[str, str]) -> None:
    assert field_error_member(field) == member


def test_errors_member_only_with_field_errors_and_in_order() -> None:
    fields = (FieldError("/b", "B."), FieldError("/a", "A."))
    body = problem_body(ApiError("validation_failed", field_errors=fields), request())
    assert body["errors"] == [{"detail": "B.", "pointer": "/b"}, {"detail": "A.", "pointer": "/a"}]
    assert "errors" not in problem_body(ApiError("validation_failed"), request())
