"""An invoice a charge may pay, and the rule that pays it: open, in the charge's tenant, for its amount and currency.

`FIELDS` is the one list of an invoice's attributes (stores.invoices): tenant_id (hash key),
invoice_id (range key), status (open | locked | paid), amount_due and currency (when set, a
charge paying the invoice must match them), description, and charge_id and paid_at once paid.
The payment is one conditional write (stores.invoices.InvoiceStore.pay_member); when it is
refused, `refusal` names the rule the invoice broke (billing.errors).
"""

from __future__ import annotations

from typing import NamedTuple

from authgate import records
from authgate.billing.errors import (
    InvoiceAlreadyPaid,
    InvoiceLocked,
    InvoiceMismatch,
    InvoiceNotFound,
    InvoiceNotPayable,
)
from authgate.records import Field

STATUSES = ("open", "locked", "paid")


class Invoice(NamedTuple):
    tenant_id: str
    invoice_id: str
    status: str
    amount_due: int | None = None
    currency: str | None = None
    description: str | None = None
    charge_id: str | None = None
    paid_at: int | None = None


FIELDS = (
    Field("tenant_id", "S"),
    Field("invoice_id", "S"),
    Field("status", "S"),
    Field("amount_due", "N", omit_none=True),
    Field("currency", "S", omit_none=True),
    Field("description", "S", omit_none=True),
    Field("charge_id", "S", omit_none=True),
    Field("paid_at", "N", omit_none=True),
)


def to_item(invoice: Invoice) -> records.Item:
    """The invoice's DynamoDB item; ValueError for a status the payment rule does not know."""
    if invoice.status not in STATUSES:
        raise ValueError(f"invoice {invoice.invoice_id}: status must be one of {STATUSES}, got {invoice.status!r}")
    return records.to_item(FIELDS, invoice._asdict())


def from_item(item: records.Item) -> Invoice:
    """An Invoice from its DynamoDB item."""
    return Invoice(**records.from_item(FIELDS, item))


def refusal(invoice_id: str, invoice: Invoice | None, amount: int, currency: str) -> InvoiceNotPayable:
    """Why `invoice` (as it was when the payment was refused; None: not in this tenant) cannot be paid."""
    if invoice is None:
        # Another tenant's invoice reads exactly like a missing one: no existence leak.
        return InvoiceNotFound(invoice_id)
    if invoice.status == "locked":
        return InvoiceLocked(invoice_id)
    if invoice.status == "paid":
        return InvoiceAlreadyPaid(invoice_id)
    amount_due = invoice.amount_due if invoice.amount_due is not None and invoice.amount_due != amount else None
    due_currency = invoice.currency if invoice.currency is not None and invoice.currency != currency else None
    if amount_due is None and due_currency is None:
        raise RuntimeError(f"invoice {invoice_id} failed its payment condition in status {invoice.status!r}")
    return InvoiceMismatch(invoice_id, amount_due, due_currency)
