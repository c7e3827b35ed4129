"""How a cancelled charge transaction reads (stores.charges), and what the client then sees (authgate.failures)."""

from __future__ import annotations

from typing import Any

import pytest

from authgate.billing import idempotency
from authgate.billing.charge import Charge
from authgate.billing.errors import (
    IdempotencyKeyInFlight,
    IdempotencyKeyUsed,
    InvoiceAlreadyPaid,
    InvoiceLocked,
    InvoiceMismatch,
    InvoiceNotFound,
)
from authgate.billing.idempotency import IdempotencyRecord
from authgate.billing.invoice import Invoice, to_item
from authgate.errors import ApiError
from authgate.failures import api_error
from authgate.stores.charges import cancellation_error
from authgate.stores.exceptions import ConcurrentUpdate, StorageUnavailable
from authgate_cli.local.loaders import invoices as seed

NOW = 1_750_000_000
CHARGE = Charge("demo", "ch_01M7YAYTSZ9GTJ60MYHX53WZ1A", 500, "usd", 0, "demo-service", invoice_id="inv_1")
RECORD = IdempotencyRecord("d" * 64, "h" * 64, "demo", CHARGE.charge_id, 201, '{"id":"x"}', NOW + 86400)
NONE, FAILED, CONFLICT = "None", "ConditionalCheckFailed", "TransactionConflict"


def cancelled(*reasons: str, items: list[dict[str, Any] | None] | None = None) -> Exception:
    """The exception for a cancelled [charge, record, invoice] transaction with these reasons."""
    return cancellation_error(CHARGE, RECORD, list(reasons), items or [None] * len(reasons), NOW)


def invoice_item(status: str, **kw: Any) -> dict[str, Any]:
    return to_item(Invoice("demo", "inv_1", status, **kw))


def test_the_record_wins_over_the_invoice() -> None:
    held = IdempotencyRecord("d" * 64, "h", "demo", "ch_A", 201, '{"id":"ch_A"}', NOW + 10)
    error = cancelled(NONE, FAILED, FAILED, items=[None, idempotency.to_item(held), invoice_item("paid")])
    assert isinstance(error, IdempotencyKeyUsed) and error.record == held


def test_an_expired_record_is_not_a_replay() -> None:
    stale = IdempotencyRecord("d" * 64, "h", "demo", "ch_A", 201, "{}", NOW - 1)
    error = cancelled(NONE, FAILED, NONE, items=[None, idempotency.to_item(stale), None])
    assert isinstance(error, RuntimeError)


@pytest.mark.parametrize(("item", "exception", "code", "status", "detail"), [
    (None, InvoiceNotFound, "invoice_not_found", 422, "No invoice inv_1 exists."),
    (invoice_item("locked"), InvoiceLocked, "invoice_locked", 403, "Invoice inv_1 is locked and cannot be charged."),
    (invoice_item("paid"), InvoiceAlreadyPaid, "invoice_already_paid", 409, "Invoice inv_1 has already been paid."),
    (invoice_item("open", amount_due=1), InvoiceMismatch, "validation_failed", 422,
     "The charge does not match invoice inv_1; see errors."),
])
def test_invoice_reasons(item: dict[str, Any] | None, exception: type, code: str, status: int, detail: str) -> None:
    error = cancelled(NONE, NONE, FAILED, items=[None, None, item])
    assert isinstance(error, exception)
    mapped = api_error(error)
    assert isinstance(mapped, ApiError) and (mapped.code, mapped.status, mapped.detail) == (code, status, detail)


def test_a_mismatch_names_each_member() -> None:
    error = cancelled(NONE, NONE, FAILED, items=[None, None, invoice_item("open", amount_due=1, currency="eur")])
    mapped = api_error(error)
    assert mapped is not None
    assert [(f.pointer, f.message) for f in mapped.field_errors] == [
        ("/amount", "must equal the invoice's amount due (1)"), ("/currency", "must equal the invoice's currency (eur)")]


def test_conflicts() -> None:
    on_invoice = cancelled(NONE, NONE, CONFLICT)
    assert isinstance(on_invoice, ConcurrentUpdate)
    mapped = api_error(on_invoice)
    assert mapped is not None and (mapped.code, mapped.status, mapped.headers) == ("concurrent_update", 409,
                                                                                   {"Retry-After": "1"})
    on_record = cancelled(NONE, CONFLICT, NONE)
    assert isinstance(on_record, IdempotencyKeyInFlight)
    mapped = api_error(on_record)
    assert mapped is not None and (mapped.code, mapped.status, mapped.headers) == (
        "idempotency_request_in_progress", 409, {"Retry-After": "1"})


def test_throttling() -> None:
    throttled = cancelled("ThrottlingError", NONE, "ProvisionedThroughputExceeded")
    assert isinstance(throttled, StorageUnavailable)
    mapped = api_error(throttled)
    assert mapped is not None and (mapped.code, mapped.status, mapped.oauth_error) == (
        "service_unavailable", 503, "temporarily_unavailable")


def test_seed_rejects_incomplete_or_unknown_members() -> None:
    with pytest.raises(ValueError, match="lacks tenant_id"):
        seed([{"invoice_id": "inv_x", "status": "open"}], dynamodb=object())
    with pytest.raises(ValueError, match="unknown members"):
        seed([{"tenant_id": "t", "invoice_id": "inv_x", "status": "open", "colour": "red"}], dynamodb=object())
