"""billing.errors: what an invoice refusal and a used idempotency key carry, and the families callers catch them by."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from authgate.billing import errors as e


@pytest.mark.parametrize("kind", [e.InvoiceNotFound, e.InvoiceLocked, e.InvoiceAlreadyPaid])
def test_an_invoice_refusal_names_the_invoice(kind: type[e.InvoiceNotPayable]) -> None:
    error = kind("inv_1")
    assert (error.invoice_id, str(error), isinstance(error, e.InvoiceNotPayable)) == ("inv_1", "inv_1", True)


def test_an_invoice_mismatch_says_what_is_due() -> None:
    error = e.InvoiceMismatch("inv_1", 1200, "usd")
    assert (error.invoice_id, error.amount_due, error.currency, isinstance(error, e.InvoiceNotPayable)) == (
        "inv_1", 1200, "usd", True)


def test_a_used_idempotency_key_carries_its_record() -> None:
    record: Any = SimpleNamespace(charge_id="ch_1")
    error = e.IdempotencyKeyUsed(record)
    assert (error.record, str(error)) == (record, "ch_1")
