"""InvoicesTable: invoices a charge may pay, and the conditional update that pays one.

The record and the payment rule are authgate.billing.invoice; this module reads and writes
invoices and builds the transaction member that pays one (stores.charges runs it).
"""

from __future__ import annotations

from typing import Any

from authgate.billing.errors import InvoiceNotPayable
from authgate.billing.invoice import Invoice, from_item, refusal, to_item
from authgate.records import Item, n, s
from authgate.stores.base import TableStore


def key(tenant_id: str, invoice_id: str) -> dict[str, dict[str, str]]:
    return {"tenant_id": s(tenant_id), "invoice_id": s(invoice_id)}


class InvoiceStore(TableStore):
    """Reads and writes invoices; payment happens inside the charge transaction (stores.charges)."""

    table_setting = "invoices"

    def get(self, tenant_id: str, invoice_id: str) -> Invoice | None:
        item = self.find(key(tenant_id, invoice_id))
        return from_item(item) if item else None

    def put(self, invoice: Invoice) -> None:
        self.upsert(to_item(invoice))

    def pay_member(self, tenant_id: str, invoice_id: str, *, charge_id: str, amount: int, currency: str,
                   now: int) -> dict[str, Any]:
        """The TransactWriteItems member that marks an open invoice paid by a charge.

        The condition is the whole business rule, so it holds under concurrency: the invoice exists
        in this tenant, is open, and (when it states them) the amount and currency match. ALL_OLD on
        failure lets `payment_failure` say which rule failed without another read.
        """
        return {"Update": {
            "TableName": self.table,
            "Key": key(tenant_id, invoice_id),
            "UpdateExpression": "SET #status = :paid, charge_id = :charge, paid_at = :now",
            "ConditionExpression": (
                "attribute_exists(invoice_id) AND #status = :open"
                " AND (attribute_not_exists(amount_due) OR amount_due = :amount)"
                " AND (attribute_not_exists(currency) OR currency = :currency)"
            ),
            "ExpressionAttributeNames": {"#status": "status"},
            "ExpressionAttributeValues": {
                ":paid": s("paid"), ":open": s("open"), ":charge": s(charge_id),
                ":now": n(now), ":amount": n(amount), ":currency": s(currency),
            },
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }}


def payment_failure(invoice_id: str, old_item: Item | None, amount: int, currency: str) -> InvoiceNotPayable:
    """Why `pay_member`'s condition failed, from the item as it was (None: no such invoice in this tenant)."""
    return refusal(invoice_id, from_item(old_item) if old_item else None, amount, currency)
