"""The charges API's refusals: an invoice that cannot be paid, an Idempotency-Key used again or in flight.

Only the exception classes, so authgate.failures (imported by every function's App) can map them
without creating the records' classes at a cold start (billing.invoice, billing.idempotency).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from authgate.billing.idempotency import IdempotencyRecord


class InvoiceNotPayable(Exception):
    """The invoice's payment condition failed; the subclass says which rule."""

    def __init__(self, invoice_id: str) -> None:
        super().__init__(invoice_id)
        self.invoice_id = invoice_id


class InvoiceNotFound(InvoiceNotPayable):
    """No such invoice in this tenant (another tenant's invoice reads exactly like this)."""


class InvoiceLocked(InvoiceNotPayable):
    """The invoice is locked and cannot be charged."""


class InvoiceAlreadyPaid(InvoiceNotPayable):
    """The invoice has already been paid."""


class InvoiceMismatch(InvoiceNotPayable):
    """The charge's amount or currency differs from what the invoice states (None: that one matches)."""

    def __init__(self, invoice_id: str, amount_due: int | None, currency: str | None) -> None:
        super().__init__(invoice_id)
        self.amount_due = amount_due
        self.currency = currency


class IdempotencyKeyReused(Exception):
    """The (client, Idempotency-Key) already created a charge from a different request body."""


class IdempotencyKeyUsed(Exception):
    """The (client, Idempotency-Key) already created a charge: `record` says which, and with what body."""

    def __init__(self, record: IdempotencyRecord) -> None:
        super().__init__(record.charge_id)
        self.record = record


class IdempotencyKeyInFlight(Exception):
    """A concurrent request with the same (client, Idempotency-Key) holds its record right now."""
