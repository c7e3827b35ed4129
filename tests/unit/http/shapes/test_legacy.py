"""http.shapes.legacy: the two ad-hoc legacy shapes (contract 2.3 and 2.4)."""

from __future__ import annotations

import pytest

from authgate.errors import ApiError, FieldError
from authgate.http.shapes.legacy import MEDIA_TYPE, field_name, legacy_a_body, legacy_b_body


def test_the_media_type() -> None:
    assert MEDIA_TYPE == "application/json"


def test_variant_a_status_equals_the_errors_status() -> None:
    assert legacy_a_body(ApiError("invoice_locked", "Invoice inv_1 is locked.", internal="never shown")) == {
        "error": "invoice_locked", "message": "Invoice inv_1 is locked.", "code": "invoice_locked", "status": 403}
    assert legacy_a_body(ApiError("rate_limited"))["status"] == 429


def test_variant_b_never_claims_success_and_carries_the_code() -> None:
    assert legacy_b_body(ApiError("not_found", "No charge ch_1.")) == {
        "success": False, "errors": [{"field": "", "message": "No charge ch_1.", "code": "not_found"}]}


def test_variant_b_one_entry_per_field_error() -> None:
    error = ApiError("validation_failed", field_errors=(
        FieldError("/items/0/name", "Required."), FieldError("", "Unknown.", "query", "currency")))
    assert legacy_b_body(error) == {"success": False, "errors": [
        {"field": "items.0.name", "message": "Required.", "code": "validation_failed"},
        {"field": "currency", "message": "Unknown.", "code": "validation_failed"}]}


@pytest.mark.parametrize(("field", "name"), [
    (FieldError("/amount", "m"), "amount"),
    (FieldError("/items/0/name", "m"), "items.0.name"),
    (FieldError("/a~1b/c~0d", "m"), "a/b.c~d"),  # RFC 6901 escapes undone, ~1 before ~0
    (FieldError("/~01", "m"), "~1"),
    (FieldError("", "m"), ""),
    (FieldError("", "m", "query", "currency"), "currency"),
    (FieldError("", "m", "header", "Idempotency-Key"), "Idempotency-Key"),
])
def test_field_names(field: FieldError, name: str) -> None:
    assert field_name(field) == name
