"""Charges that pay invoices: one transaction, business-rule failures with their own codes."""

from __future__ import annotations

import threading

import pytest

from tests.demo import body, count_charges, headers


def invoice(tenant="demo", invoice_id="inv_open"):
    from authgate.stores.invoices import InvoiceStore

    return InvoiceStore().get(tenant, invoice_id)


def put_invoice(**fields):
    from authgate.billing.invoice import Invoice
    from authgate.stores.invoices import InvoiceStore

    InvoiceStore().put(Invoice(**{"tenant_id": "demo", **fields}))


def pay(demo, invoke, invoice_id, client="demo-service", amount=5000, currency="usd", key=None):
    extra = {"Idempotency-Key": key} if key else {}
    event = demo.event("POST", body={"amount": amount, "currency": currency, "invoice_id": invoice_id},
                       client=client, headers=extra)
    return invoke("charges", event)


def test_paying_an_open_invoice_marks_it_paid(demo, invoke):
    result = pay(demo, invoke, "inv_open")
    assert result["statusCode"] == 201
    charge = body(result)
    assert charge["invoice_id"] == "inv_open"
    paid = invoice()
    assert (paid.status, paid.charge_id) == ("paid", charge["id"])
    assert isinstance(paid.paid_at, int)


def test_locked_invoice_is_403_and_nothing_is_written(demo, invoke):
    result = pay(demo, invoke, "inv_locked")
    assert result["statusCode"] == 403
    assert headers(result)["content-type"] == "application/problem+json"
    problem = body(result)
    assert (problem["code"], problem["title"], problem["detail"]) == (
        "invoice_locked", "Invoice locked", "Invoice inv_locked is locked and cannot be charged.")
    assert "www-authenticate" not in headers(result)  # a business rule, not an auth failure
    assert count_charges() == 0
    assert invoice(invoice_id="inv_locked").status == "locked"


def test_paid_invoice_is_409(demo, invoke):
    assert pay(demo, invoke, "inv_open")["statusCode"] == 201
    result = pay(demo, invoke, "inv_open")
    assert result["statusCode"] == 409
    assert (body(result)["code"], body(result)["detail"]) == (
        "invoice_already_paid", "Invoice inv_open has already been paid.")
    assert count_charges() == 1


def test_unknown_invoice_is_422_pointing_at_invoice_id(demo, invoke):
    result = pay(demo, invoke, "inv_nope")
    assert result["statusCode"] == 422
    problem = body(result)
    assert (problem["code"], problem["errors"]) == (
        "invoice_not_found", [{"pointer": "/invoice_id", "detail": "does not name an invoice of this tenant"}])
    assert count_charges() == 0


def test_another_tenants_invoice_reads_as_unknown(demo, invoke):
    result = pay(demo, invoke, "inv_open", client="acme-service")
    assert (result["statusCode"], body(result)["code"]) == (422, "invoice_not_found")
    assert invoice().status == "open"
    assert count_charges("acme") == 0


def test_amount_and_currency_must_match_the_invoice(demo, invoke):
    put_invoice(invoice_id="inv_due", status="open", amount_due=2500, currency="eur")
    result = pay(demo, invoke, "inv_due", amount=2400, currency="usd")
    assert result["statusCode"] == 422
    problem = body(result)
    assert problem["code"] == "validation_failed"
    assert problem["errors"] == [
        {"pointer": "/amount", "detail": "must equal the invoice's amount due (2500)"},
        {"pointer": "/currency", "detail": "must equal the invoice's currency (eur)"},
    ]
    assert invoice(invoice_id="inv_due").status == "open"
    assert pay(demo, invoke, "inv_due", amount=2500, currency="eur")["statusCode"] == 201


def test_legacy_clients_get_the_business_code(demo, invoke):
    a = pay(demo, invoke, "inv_locked", client="demo-legacy-a")
    assert (a["statusCode"], body(a)) == (403, {"error": "invoice_locked", "code": "invoice_locked", "status": 403,
                                               "message": "Invoice inv_locked is locked and cannot be charged."})
    b = pay(demo, invoke, "inv_locked", client="demo-legacy-b")
    assert (b["statusCode"], body(b)) == (403, {"success": False, "errors": [
        {"field": "", "message": "Invoice inv_locked is locked and cannot be charged.", "code": "invoice_locked"}]})


@pytest.mark.slow
def test_concurrent_payments_of_one_invoice_charge_once(demo, invoke):
    """16 clients race to pay one invoice with different keys: exactly one charge, the rest 409."""
    for round_ in range(5):
        invoice_id = f"inv_race_{round_}"
        put_invoice(invoice_id=invoice_id, status="open")
        statuses: list[int] = []
        barrier = threading.Barrier(16)

        def attempt(i: int, invoice_id: str, key: str, barrier: threading.Barrier, statuses: list[int]) -> None:
            event = demo.event("POST", body={"amount": 100, "currency": "usd", "invoice_id": invoice_id},
                               headers={"Idempotency-Key": key})
            barrier.wait()
            statuses.append(invoke("charges", event)["statusCode"])

        threads = [threading.Thread(target=attempt, args=(i, invoice_id, f"race-{round_}-{i}", barrier, statuses))
                   for i in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(statuses) == [201] + [409] * 15
    assert count_charges() == 5
