"""ChargesTable: charges by (tenant_id, charge_id), written in one transaction with their side effects.

Item: tenant_id S (hash), charge_id S (range, time-ordered "ch_<ULID>"), amount N, currency S,
status S, created N, client_id S, description S?, invoice_id S?, request_hash S?.

Creating a charge is ONE TransactWriteItems: the charge, the invoice it pays (stores.invoices),
and, when the client sent an Idempotency-Key, a marker in IdempotencyTable naming the charge.
The marker is what makes a retry after a timeout safe: Powertools' own record may have been
taken over once its in-progress lock expired, but the marker still says which charge this
(client, key) created, so the retry returns that charge instead of writing a second one.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from authgate import aws
from authgate.charges.model import Charge
from authgate.errors import ApiError
from authgate.errors.model import retry_after
from authgate.settings import get_settings
from authgate.stores import invoices
from authgate.stores.faults import UNAVAILABLE_CODES, dynamodb_faults, unavailable

MARKER_PREFIX = "charge-for#"
# Cancellation reason codes (TransactWriteItems CancellationReasons) that mean "not now".
UNAVAILABLE_REASONS = frozenset({"ThrottlingError", "ProvisionedThroughputExceeded"}) | UNAVAILABLE_CODES
MARKER_TTL_SECONDS = 24 * 3600


@dataclass(frozen=True)
class Marker:
    """Idempotency marker: (client, key) digest -> the charge it created, for 24 h."""

    digest: str
    request_hash: str


class KeyAlreadyCharged(Exception):
    """The (client, key) already created a charge; carries what the marker recorded."""

    def __init__(self, tenant_id: str, charge_id: str, request_hash: str) -> None:
        super().__init__(charge_id)
        self.tenant_id = tenant_id
        self.charge_id = charge_id
        self.request_hash = request_hash


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


class ChargeStore:
    def __init__(self, dynamodb: Any = None) -> None:
        self._client = dynamodb

    @property
    def client(self) -> Any:
        return self._client or aws.dynamodb()

    def create(self, charge: Charge, marker: Marker | None = None) -> None:
        """Write the charge, pay its invoice, record its marker: all or nothing.

        Raises KeyAlreadyCharged, or ApiError for a business rule (invoice_*), a concurrent
        transaction on the same items (concurrent_update) or throttling (service_unavailable).
        """
        tables = get_settings().tables
        now = int(time.time())
        items: list[dict[str, Any]] = [{"Put": {
            "TableName": tables.charges, "Item": to_item(charge),
            # Ids are 80 random bits per millisecond; the condition makes a collision an error,
            # never an overwrite.
            "ConditionExpression": "attribute_not_exists(charge_id)",
        }}]
        if marker is not None:
            items.append({"Put": {
                "TableName": tables.idempotency,
                "Item": {"id": {"S": MARKER_PREFIX + marker.digest},
                         "expiration": {"N": str(now + MARKER_TTL_SECONDS)},
                         "tenant_id": {"S": charge.tenant_id}, "charge_id": {"S": charge.charge_id},
                         "request_hash": {"S": marker.request_hash}},
                # Free, or expired (TTL deletion lags, and moto never deletes).
                "ConditionExpression": "attribute_not_exists(id) OR expiration < :now",
                "ExpressionAttributeValues": {":now": {"N": str(now)}},
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            }})
        if charge.invoice_id is not None:
            items.append(invoices.pay_update(charge.tenant_id, charge.invoice_id, charge_id=charge.charge_id,
                                             amount=charge.amount, currency=charge.currency, now=now))
        from botocore.exceptions import ClientError

        try:
            with dynamodb_faults("charges.create"):
                self.client.transact_write_items(TransactItems=items)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                raise
            raise self._cancelled(charge, marker, exc.response.get("CancellationReasons") or []) from exc

    @staticmethod
    def _cancelled(charge: Charge, marker: Marker | None, reasons: list[dict[str, Any]]) -> Exception:
        """Turn cancellation reasons (one per item, in order) into the error the client should see."""
        by_item = {"charge": reasons[0] if reasons else {}}
        position = 1
        if marker is not None:
            by_item["marker"] = reasons[position] if len(reasons) > position else {}
            position += 1
        if charge.invoice_id is not None:
            by_item["invoice"] = reasons[position] if len(reasons) > position else {}
        codes = {name: reason.get("Code", "None") for name, reason in by_item.items()}
        # The marker first: after a timed-out first attempt the invoice is paid by *that* charge,
        # and the retry must return it rather than report invoice_already_paid.
        if codes.get("marker") == "ConditionalCheckFailed":
            old = by_item["marker"].get("Item") or {}
            return KeyAlreadyCharged(old["tenant_id"]["S"], old["charge_id"]["S"], old["request_hash"]["S"])
        if codes.get("invoice") == "ConditionalCheckFailed":
            assert charge.invoice_id is not None
            return invoices.payment_error(charge.invoice_id, by_item["invoice"].get("Item"),
                                          charge.amount, charge.currency)
        if "TransactionConflict" in codes.values():
            return retry_after(ApiError("concurrent_update", "Another request is changing the same invoice; retry.",
                                        internal=f"transaction conflict: {codes}"), 1)
        if UNAVAILABLE_REASONS & set(codes.values()):
            return unavailable(f"charges.create cancelled: {codes}")
        return RuntimeError(f"charge transaction cancelled: {codes}")

    def get(self, tenant_id: str, charge_id: str) -> Charge | None:
        """The tenant's charge; another tenant's id simply is not found under this tenant's key."""
        with dynamodb_faults("charges.get"):
            item = self.client.get_item(TableName=get_settings().tables.charges, ConsistentRead=True,
                                        Key={"tenant_id": {"S": tenant_id}, "charge_id": {"S": charge_id}}).get("Item")
        return from_item(item) if item else None

    def page(self, tenant_id: str, limit: int, before: str | None = None) -> tuple[list[Charge], bool]:
        """Up to `limit` charges, newest first, strictly older than `before`; and whether more exist."""
        condition = "tenant_id = :t"
        values: dict[str, Any] = {":t": {"S": tenant_id}}
        if before is not None:
            condition += " AND charge_id < :before"
            values[":before"] = {"S": before}
        with dynamodb_faults("charges.list"):
            # One extra item answers has_more without a second query.
            response = self.client.query(TableName=get_settings().tables.charges, ConsistentRead=True,
                                         KeyConditionExpression=condition, ExpressionAttributeValues=values,
                                         ScanIndexForward=False, Limit=limit + 1)
        charges = [from_item(item) for item in response.get("Items", [])]
        return charges[:limit], len(charges) > limit
