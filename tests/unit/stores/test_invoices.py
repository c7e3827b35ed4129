"""stores.invoices: an invoice is paid by one charge, under a condition that is the whole business rule."""

from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import ClientError

from authgate.billing.errors import (
    InvoiceAlreadyPaid,
    InvoiceLocked,
    InvoiceMismatch,
    InvoiceNotFound,
)
from authgate.billing.invoice import Invoice, from_item, to_item
from authgate.stores.invoices import InvoiceStore, payment_failure

OPEN = Invoice("t1", "inv_1", "open", amount_due=500, currency="usd", description="May")


def test_an_invoice_round_trips_and_a_bad_status_is_refused() -> None:
    assert from_item(to_item(OPEN)) == OPEN
    assert from_item(to_item(Invoice("t1", "inv_2", "open"))) == Invoice("t1", "inv_2", "open")
    with pytest.raises(ValueError, match="status must be one of"):
        to_item(Invoice("t1", "inv_3", "void"))


def pay(invoice_id: str, amount: int = 500, currency: str = "usd", tenant: str = "t1") -> None:
    update = InvoiceStore().pay_member(tenant, invoice_id, charge_id="ch_1", amount=amount, currency=currency, now=1000)
    try:
        boto3.client("dynamodb").transact_write_items(TransactItems=[update])
    except ClientError as exc:
        reasons = exc.response.get("CancellationReasons") or [{}]
        raise payment_failure(invoice_id, reasons[0].get("Item"), amount, currency) from exc


def test_an_open_invoice_is_paid_once(aws: None) -> None:
    InvoiceStore().put(OPEN)
    pay("inv_1")
    assert InvoiceStore().get("t1", "inv_1") == OPEN._replace(status="paid", charge_id="ch_1", paid_at=1000)
    with pytest.raises(InvoiceAlreadyPaid):
        pay("inv_1")


@pytest.mark.parametrize(("invoice", "payment", "refusal"), [
    (OPEN, {"amount": 499}, InvoiceMismatch),
    (OPEN, {"currency": "eur"}, InvoiceMismatch),
    (OPEN._replace(status="locked"), {}, InvoiceLocked),
    (OPEN, {"tenant": "t2"}, InvoiceNotFound),  # another tenant's invoice reads as missing
])
def test_each_broken_rule_is_named(aws: None, invoice: Invoice, payment: dict[str, object],
                                   refusal: type[Exception]) -> None:
    InvoiceStore().put(invoice)
    with pytest.raises(refusal):
        pay("inv_1", **payment)  # type: ignore[arg-type]
    assert InvoiceStore().get("t1", "inv_1") == invoice  # nothing changed


def test_a_mismatch_says_what_the_invoice_expects() -> None:
    failure = payment_failure("inv_1", to_item(OPEN), 499, "usd")
    assert isinstance(failure, InvoiceMismatch)
    assert (failure.amount_due, failure.currency) == (500, None)
