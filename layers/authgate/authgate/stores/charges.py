"""ChargesTable: charges by (tenant_id, charge_id), written in one transaction with their side effects.

The record is authgate.billing.charge (its attributes: billing.charge.FIELDS). Creating a charge
is ONE TransactWriteItems: the charge, the invoice it pays (stores.invoices), and, when the client
sent an Idempotency-Key, the key's record (stores.idempotency) holding the response, and, under
RFC 9396 `charge` details, one charge of its grant's budget (stores.grant_budgets). All or
nothing, so a charge never exists without its record nor its record without the charge: exactly
once per (client, key), whatever times out or races. A cancelled transaction's per-item reasons
become the domain's exceptions (billing.idempotency, billing.invoice) or a storage failure.
"""

from __future__ import annotations

from typing import Any

from authgate import clock
from authgate.authorization_details.errors import DetailsExceeded
from authgate.billing import idempotency
from authgate.billing.charge import Charge, from_item, to_item
from authgate.billing.errors import IdempotencyKeyInFlight, IdempotencyKeyUsed
from authgate.billing.grant_budget import Budget
from authgate.billing.idempotency import IdempotencyRecord
from authgate.records import Item, s
from authgate.stores.base import TableStore
from authgate.stores.batch import BatchRead, Pending
from authgate.stores.exceptions import ConcurrentUpdate, StorageUnavailable
from authgate.stores.faults import UNAVAILABLE_CANCELLATION_REASONS, cancellation_codes
from authgate.stores.grant_budgets import GrantBudgetStore
from authgate.stores.idempotency import IdempotencyStore
from authgate.stores.invoices import InvoiceStore, payment_failure

FAILED = "ConditionalCheckFailed"
CONFLICT = "TransactionConflict"


def key(tenant_id: str, charge_id: str) -> dict[str, dict[str, str]]:
    return {"tenant_id": s(tenant_id), "charge_id": s(charge_id)}


def cancellation_error(charge: Charge, record: IdempotencyRecord | None, reasons: list[str],
                       old_items: list[Item | None], now: int, budget: Budget | None = None) -> Exception:
    """Turn a cancelled transaction's reasons (one per item, in order) into the domain exception.

    Items: the charge, the idempotency record (with a key), the invoice (when one is paid), the grant's
    budget (under RFC 9396 charge details).
    """
    names = ["charge"] + (["record"] if record is not None else []) + (["invoice"] if charge.invoice_id else []) \
        + (["budget"] if budget is not None else [])
    codes = dict(zip(names, reasons + ["None"] * (len(names) - len(reasons)), strict=False))
    olds = dict(zip(names, old_items + [None] * (len(names) - len(old_items)), strict=False))
    # The record first: after a timed-out first attempt the invoice is paid by *that* charge,
    # and the retry must be told about it rather than report the invoice already paid.
    if codes.get("record") == FAILED:
        old_record = olds.get("record")
        held = idempotency.from_item(old_record, now) if old_record else None
        if held is not None:
            return IdempotencyKeyUsed(held)
    if codes.get("record") == CONFLICT:
        return IdempotencyKeyInFlight(f"idempotency record of charge {charge.charge_id}")
    if codes.get("budget") == FAILED:
        assert budget is not None
        return DetailsExceeded(f"This grant has already made the {budget.max_charges} charge"
                               f"{'s' if budget.max_charges > 1 else ''} its approved payment allows (max_charges); "
                               "ask the user to approve a new payment.")
    if codes.get("invoice") == FAILED:
        assert charge.invoice_id is not None
        return payment_failure(charge.invoice_id, olds.get("invoice"), charge.amount, charge.currency)
    if CONFLICT in codes.values():
        return ConcurrentUpdate(f"transaction conflict: {codes}")
    if UNAVAILABLE_CANCELLATION_REASONS & set(codes.values()):
        return StorageUnavailable("charges.create", f"cancelled: {codes}")
    return RuntimeError(f"charge transaction cancelled: {codes}")


class ChargeStore(TableStore):
    """ChargesTable, and the one transaction that writes a charge with its record and its invoice."""

    table_setting = "charges"

    def create(self, charge: Charge, record: IdempotencyRecord | None = None, budget: Budget | None = None) -> None:
        """Write the charge, pay its invoice, record its key's response, spend one of its grant's charges: all or
        nothing.

        Raises IdempotencyKeyUsed (the key's live record, which names the charge it made),
        IdempotencyKeyInFlight, InvoiceNotPayable, DetailsExceeded (the grant's budget is spent),
        ConcurrentUpdate or StorageUnavailable.
        """
        now = clock.seconds()
        items: list[dict[str, Any]] = [{"Put": {
            "TableName": self.table, "Item": to_item(charge),
            # Ids are 80 random bits per millisecond; the condition makes a collision an error,
            # never an overwrite.
            "ConditionExpression": "attribute_not_exists(charge_id)",
        }}]
        if record is not None:
            items.append(IdempotencyStore(self.db).put_member(record, now))
        if charge.invoice_id is not None:
            items.append(InvoiceStore(self.db).pay_member(charge.tenant_id, charge.invoice_id,
                                                          charge_id=charge.charge_id, amount=charge.amount,
                                                          currency=charge.currency, now=now))
        if budget is not None:
            items.append(GrantBudgetStore(self.db).spend_member(budget, charge.tenant_id, now))
        from botocore.exceptions import ClientError

        try:
            with self.faults("create"):
                self.db.transact_write_items(TransactItems=items)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                raise
            reasons = exc.response.get("CancellationReasons") or []
            error = cancellation_error(charge, record, cancellation_codes(exc.response),
                                       [reason.get("Item") for reason in reasons], now, budget)
            raise error from exc

    def get(self, tenant_id: str, charge_id: str) -> Charge | None:
        """The tenant's charge; another tenant's id simply is not found under this tenant's key."""
        item = self.find(key(tenant_id, charge_id))
        return from_item(item) if item else None

    def prefetch(self, reads: BatchRead, tenant_id: str, charge_id: str) -> Pending:
        """Register the charge in the request's batch read (`found` of it once it ran)."""
        return reads.add(self.table, key(tenant_id, charge_id))

    @staticmethod
    def found(pending: Pending | None) -> Charge | None:
        """The charge a prefetched read found, if any."""
        item = pending.item if pending is not None else None
        return from_item(item) if item else None

    def page(self, tenant_id: str, limit: int, before: str | None = None) -> tuple[list[Charge], bool]:
        """Up to `limit` charges, newest first, strictly older than `before`; and whether more exist."""
        condition = "tenant_id = :t"
        values: dict[str, Any] = {":t": s(tenant_id)}
        if before is not None:
            condition += " AND charge_id < :before"
            values[":before"] = s(before)
        with self.faults("list"):
            # One extra item answers has_more without a second query.
            response = self.db.query(TableName=self.table, ConsistentRead=True,
                                     KeyConditionExpression=condition, ExpressionAttributeValues=values,
                                     ScanIndexForward=False, Limit=limit + 1)
        charges = [from_item(item) for item in response.get("Items", [])]
        return charges[:limit], len(charges) > limit
