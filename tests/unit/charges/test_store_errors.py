"""How a cancelled charge transaction reads to the client (stores.charges, stores.invoices)."""

from __future__ import annotations

import pytest

from authgate.charges.model import Charge
from authgate.errors import ApiError
from authgate.stores.charges import ChargeStore, KeyAlreadyCharged, Marker
from authgate.stores.invoices import Invoice, seed, to_item

CHARGE = Charge("demo", "ch_01M7YAYTSZ9GTJ60MYHX53WZ1A", 500, "usd", 0, "demo-service", invoice_id="inv_1")
MARKER = Marker("d" * 64, "h" * 64)
NONE = {"Code": "None"}
FAILED = {"Code": "ConditionalCheckFailed"}


def cancelled(*reasons):
    return ChargeStore._cancelled(CHARGE, MARKER, list(reasons))


def invoice_item(status, **kw):
    return to_item(Invoice("demo", "inv_1", status, **kw))


def test_marker_wins_over_the_invoice():
    old = {"id": {"S": "x"}, "tenant_id": {"S": "demo"}, "charge_id": {"S": "ch_A"}, "request_hash": {"S": "h"}}
    error = cancelled(NONE, {**FAILED, "Item": old}, {**FAILED, "Item": invoice_item("paid")})
    assert isinstance(error, KeyAlreadyCharged) and (error.charge_id, error.request_hash) == ("ch_A", "h")


@pytest.mark.parametrize(("item", "code", "status"), [
    (None, "invoice_not_found", 422),
    (invoice_item("locked"), "invoice_locked", 403),
    (invoice_item("paid"), "invoice_already_paid", 409),
    (invoice_item("open", amount_due=1), "validation_failed", 422),
])
def test_invoice_reasons(item, code, status):
    reason = {**FAILED, **({"Item": item} if item else {})}
    error = cancelled(NONE, NONE, reason)
    assert isinstance(error, ApiError) and (error.code, error.status) == (code, status)


def test_conflict_and_throttling():
    conflict = cancelled(NONE, NONE, {"Code": "TransactionConflict"})
    assert (conflict.code, conflict.status, conflict.headers["Retry-After"]) == ("concurrent_update", 409, "1")
    throttled = cancelled({"Code": "ThrottlingError"}, NONE, {"Code": "ProvisionedThroughputExceeded"})
    assert isinstance(throttled, ApiError) and throttled.code == "service_unavailable"


def test_seed_rejects_incomplete_or_unknown_members():
    with pytest.raises(ValueError, match="lacks tenant_id"):
        seed([{"invoice_id": "inv_x", "status": "open"}], dynamodb=object())
    with pytest.raises(ValueError, match="unknown members"):
        seed([{"tenant_id": "t", "invoice_id": "inv_x", "status": "open", "colour": "red"}], dynamodb=object())
