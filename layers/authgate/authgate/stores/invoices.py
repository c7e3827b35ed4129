"""InvoicesTable: invoices a charge may pay, and the conditional update that pays one.

Item: tenant_id S (hash), invoice_id S (range), status S (open | locked | paid),
amount_due N? and currency S? (when set, a charge paying the invoice must match them),
description S?, charge_id S? and paid_at N? (set when paid).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from authgate import aws
from authgate.settings import get_settings
from authgate.stores.exceptions import (
    InvoiceAlreadyPaid,
    InvoiceLocked,
    InvoiceMismatch,
    InvoiceNotFound,
    InvoiceNotPayable,
)
from authgate.stores.faults import aws_faults

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


def from_item(item: Mapping[str, Any]) -> Invoice:
    def opt_n(name: str) -> int | None:
        return int(item[name]["N"]) if name in item else None

    def opt_s(name: str) -> str | None:
        return item[name]["S"] if name in item else None

    return Invoice(item["tenant_id"]["S"], item["invoice_id"]["S"], item["status"]["S"],
                   opt_n("amount_due"), opt_s("currency"), opt_s("description"),
                   opt_s("charge_id"), opt_n("paid_at"))


def to_item(invoice: Invoice) -> dict[str, Any]:
    if invoice.status not in STATUSES:
        raise ValueError(f"invoice {invoice.invoice_id}: status must be one of {STATUSES}, got {invoice.status!r}")
    item: dict[str, Any] = {"tenant_id": {"S": invoice.tenant_id}, "invoice_id": {"S": invoice.invoice_id},
                            "status": {"S": invoice.status}}
    for name in ("amount_due", "paid_at"):
        if getattr(invoice, name) is not None:
            item[name] = {"N": str(int(getattr(invoice, name)))}
    for name in ("currency", "description", "charge_id"):
        if getattr(invoice, name) is not None:
            item[name] = {"S": getattr(invoice, name)}
    return item


def pay_update(tenant_id: str, invoice_id: str, *, charge_id: str, amount: int, currency: str,
               now: int) -> dict[str, Any]:
    """The TransactWriteItems member that marks an open invoice paid by a charge.

    The condition is the whole business rule, so it holds under concurrency: the invoice exists
    in this tenant, is open, and (when it states them) the amount and currency match. ALL_OLD on
    failure lets `payment_failure` say which rule failed without another read.
    """
    return {"Update": {
        "TableName": get_settings().tables.invoices,
        "Key": {"tenant_id": {"S": tenant_id}, "invoice_id": {"S": invoice_id}},
        "UpdateExpression": "SET #status = :paid, charge_id = :charge, paid_at = :now",
        "ConditionExpression": (
            "attribute_exists(invoice_id) AND #status = :open"
            " AND (attribute_not_exists(amount_due) OR amount_due = :amount)"
            " AND (attribute_not_exists(currency) OR currency = :currency)"
        ),
        "ExpressionAttributeNames": {"#status": "status"},
        "ExpressionAttributeValues": {
            ":paid": {"S": "paid"}, ":open": {"S": "open"}, ":charge": {"S": charge_id},
            ":now": {"N": str(now)}, ":amount": {"N": str(amount)}, ":currency": {"S": currency},
        },
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
    }}


def payment_failure(invoice_id: str, old_item: Mapping[str, Any] | None, amount: int,
                    currency: str) -> InvoiceNotPayable:
    """Why `pay_update`'s condition failed, from the item as it was (None: no such invoice here)."""
    if not old_item:
        # Another tenant's invoice reads exactly like a missing one: no existence leak.
        return InvoiceNotFound(invoice_id)
    invoice = from_item(old_item)
    if invoice.status == "locked":
        return InvoiceLocked(invoice_id)
    if invoice.status == "paid":
        return InvoiceAlreadyPaid(invoice_id)
    amount_due = invoice.amount_due if invoice.amount_due is not None and invoice.amount_due != amount else None
    due_currency = invoice.currency if invoice.currency is not None and invoice.currency != currency else None
    if amount_due is None and due_currency is None:
        raise RuntimeError(f"invoice {invoice_id} failed its payment condition in status {invoice.status!r}")
    return InvoiceMismatch(invoice_id, amount_due, due_currency)


class InvoiceStore:
    """Reads invoices; payment happens inside the charge transaction (stores.charges)."""

    def __init__(self, dynamodb: Any = None) -> None:
        self._client = dynamodb

    @property
    def client(self) -> Any:
        return self._client or aws.dynamodb()

    def get(self, tenant_id: str, invoice_id: str) -> Invoice | None:
        with aws_faults("invoices.get"):
            item = self.client.get_item(TableName=get_settings().tables.invoices, ConsistentRead=True,
                                        Key={"tenant_id": {"S": tenant_id}, "invoice_id": {"S": invoice_id}}).get("Item")
        return from_item(item) if item else None

    def put(self, invoice: Invoice) -> None:
        with aws_faults("invoices.put"):
            self.client.put_item(TableName=get_settings().tables.invoices, Item=to_item(invoice))
