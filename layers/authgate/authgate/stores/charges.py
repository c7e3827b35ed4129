"""ChargesTable: charges by (tenant_id, charge_id), written in one transaction with their side effects.

Item: tenant_id S (hash), charge_id S (range, time-ordered "ch_<ULID>"), amount N, currency S,
status S, created N, client_id S, description S?, invoice_id S?, request_hash S?.

Creating a charge is ONE TransactWriteItems: the charge, the invoice it pays (stores.invoices),
and, when the client sent an Idempotency-Key, the key's record (stores.idempotency) holding the
response. All or nothing, so a charge never exists without its record nor its record without
the charge: exactly once per (client, key), whatever times out or races. A cancelled
transaction's per-item reasons become domain exceptions (stores.exceptions).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from authgate import aws, clock
from authgate.settings import get_settings
from authgate.stores import idempotency, invoices
from authgate.stores.exceptions import (
    ConcurrentUpdate,
    IdempotencyKeyInFlight,
    IdempotencyKeyUsed,
    StorageUnavailable,
)
from authgate.stores.faults import (
    UNAVAILABLE_CANCELLATION_REASONS,
    aws_faults,
    cancellation_codes,
)

if TYPE_CHECKING:
    from authgate.stores.batch import BatchRead, Pending
    from authgate.stores.idempotency import IdempotencyRecord

FAILED = "ConditionalCheckFailed"
CONFLICT = "TransactionConflict"


class Charge(NamedTuple):
    """A succeeded charge, owned by one tenant."""

    tenant_id: str
    charge_id: str
    amount: int
    currency: str
    created: int  # epoch seconds
    client_id: str
    description: str | None = None
    invoice_id: str | None = None
    status: str = "succeeded"
    # sha256 of the canonical request when the charge was created with an Idempotency-Key.
    request_hash: str | None = None


def to_item(charge: Charge) -> dict[str, Any]:
    item: dict[str, Any] = {
        "tenant_id": {"S": charge.tenant_id}, "charge_id": {"S": charge.charge_id},
        "amount": {"N": str(charge.amount)}, "currency": {"S": charge.currency},
        "status": {"S": charge.status}, "created": {"N": str(charge.created)},
        "client_id": {"S": charge.client_id},
    }
    for name in ("description", "invoice_id", "request_hash"):
        if getattr(charge, name) is not None:
            item[name] = {"S": getattr(charge, name)}
    return item


def from_item(item: Mapping[str, Any]) -> Charge:
    def opt(name: str) -> str | None:
        return item[name]["S"] if name in item else None

    return Charge(tenant_id=item["tenant_id"]["S"], charge_id=item["charge_id"]["S"],
                  amount=int(item["amount"]["N"]), currency=item["currency"]["S"],
                  created=int(item["created"]["N"]), client_id=item["client_id"]["S"],
                  description=opt("description"), invoice_id=opt("invoice_id"),
                  status=item["status"]["S"], request_hash=opt("request_hash"))


def key(tenant_id: str, charge_id: str) -> dict[str, dict[str, str]]:
    return {"tenant_id": {"S": tenant_id}, "charge_id": {"S": charge_id}}


def cancellation_error(charge: Charge, record: IdempotencyRecord | None, reasons: list[str],
                       old_items: list[dict[str, Any] | None], now: int) -> Exception:
    """Turn a cancelled transaction's reasons (one per item, in order) into the domain exception.

    Items: the charge, the idempotency record (with a key), the invoice (when one is paid).
    """
    names = ["charge"] + (["record"] if record is not None else []) + (["invoice"] if charge.invoice_id else [])
    codes = dict(zip(names, reasons + ["None"] * (len(names) - len(reasons)), strict=False))
    olds = dict(zip(names, old_items + [None] * (len(names) - len(old_items)), strict=False))
    # The record first: after a timed-out first attempt the invoice is paid by *that* charge,
    # and the retry must be told about it rather than report the invoice already paid.
    if codes.get("record") == FAILED:
        held = idempotency.from_item(olds["record"] or {}, now) if olds.get("record") else None
        if held is not None:
            return IdempotencyKeyUsed(held)
    if codes.get("record") == CONFLICT:
        return IdempotencyKeyInFlight(f"idempotency record of charge {charge.charge_id}")
    if codes.get("invoice") == FAILED:
        assert charge.invoice_id is not None
        return invoices.payment_failure(charge.invoice_id, olds.get("invoice"), charge.amount, charge.currency)
    if CONFLICT in codes.values():
        return ConcurrentUpdate(f"transaction conflict: {codes}")
    if UNAVAILABLE_CANCELLATION_REASONS & set(codes.values()):
        return StorageUnavailable("charges.create", f"cancelled: {codes}")
    return RuntimeError(f"charge transaction cancelled: {codes}")


class ChargeStore:
    def __init__(self, dynamodb: Any = None) -> None:
        self._client = dynamodb

    @property
    def client(self) -> Any:
        return self._client or aws.dynamodb()

    def create(self, charge: Charge, record: IdempotencyRecord | None = None) -> None:
        """Write the charge, pay its invoice, record its key's response: all or nothing.

        Raises IdempotencyKeyUsed (the key's live record, which names the charge it made),
        IdempotencyKeyInFlight, InvoiceNotPayable, ConcurrentUpdate or StorageUnavailable.
        """
        tables = get_settings().tables
        now = clock.seconds()
        items: list[dict[str, Any]] = [{"Put": {
            "TableName": tables.charges, "Item": to_item(charge),
            # Ids are 80 random bits per millisecond; the condition makes a collision an error,
            # never an overwrite.
            "ConditionExpression": "attribute_not_exists(charge_id)",
        }}]
        if record is not None:
            items.append(idempotency.put_member(record, now))
        if charge.invoice_id is not None:
            items.append(invoices.pay_update(charge.tenant_id, charge.invoice_id, charge_id=charge.charge_id,
                                             amount=charge.amount, currency=charge.currency, now=now))
        from botocore.exceptions import ClientError

        try:
            with aws_faults("charges.create"):
                self.client.transact_write_items(TransactItems=items)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                raise
            reasons = exc.response.get("CancellationReasons") or []
            error = cancellation_error(charge, record, cancellation_codes(exc.response),
                                       [reason.get("Item") for reason in reasons], now)
            raise error from exc

    def get(self, tenant_id: str, charge_id: str) -> Charge | None:
        """The tenant's charge; another tenant's id simply is not found under this tenant's key."""
        with aws_faults("charges.get"):
            item = self.client.get_item(TableName=get_settings().tables.charges, ConsistentRead=True,
                                        Key=key(tenant_id, charge_id)).get("Item")
        return from_item(item) if item else None

    @staticmethod
    def prefetch(reads: BatchRead, tenant_id: str, charge_id: str) -> Pending:
        """Register the charge in the request's batch read (`from_item` of `.item` once it ran)."""
        return reads.add(get_settings().tables.charges, key(tenant_id, charge_id))

    def page(self, tenant_id: str, limit: int, before: str | None = None) -> tuple[list[Charge], bool]:
        """Up to `limit` charges, newest first, strictly older than `before`; and whether more exist."""
        condition = "tenant_id = :t"
        values: dict[str, Any] = {":t": {"S": tenant_id}}
        if before is not None:
            condition += " AND charge_id < :before"
            values[":before"] = {"S": before}
        with aws_faults("charges.list"):
            # One extra item answers has_more without a second query.
            response = self.client.query(TableName=get_settings().tables.charges, ConsistentRead=True,
                                         KeyConditionExpression=condition, ExpressionAttributeValues=values,
                                         ScanIndexForward=False, Limit=limit + 1)
        charges = [from_item(item) for item in response.get("Items", [])]
        return charges[:limit], len(charges) > limit

