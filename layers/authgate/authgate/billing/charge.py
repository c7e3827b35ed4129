"""A succeeded charge, owned by one tenant (the charges API's resource; its JSON: charges.model).

`FIELDS` is the one list of a charge's attributes (stores.charges writes and reads them):
tenant_id (hash key), charge_id (range key, time-ordered "ch_<ULID>"), amount, currency, status,
created, client_id, and description, invoice_id, request_hash when set; created_by, who made it: the
token's `sub` and, for a token from a token exchange, its `act` (RFC 8693 4.1); grant_id, the grant whose
approved payment (RFC 9396 `charge` details) it used.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from authgate import records
from authgate.records import Field


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
    # {"sub": ..., "act": ... or None}: who created it (None for charges made before it was recorded).
    created_by: dict[str, Any] | None = None
    # The grant whose approved payment (RFC 9396 `charge` details) it used; None for a charge under scope alone.
    grant_id: str | None = None


FIELDS = (
    Field("tenant_id", "S"),
    Field("charge_id", "S"),
    Field("amount", "N"),
    Field("currency", "S"),
    Field("created", "N"),
    Field("client_id", "S"),
    # An empty description is written as sent: only an absent one is left out.
    Field("description", "S", omit_none=True),
    Field("invoice_id", "S", omit_none=True),
    Field("status", "S"),
    Field("request_hash", "S", omit_none=True),
    Field("created_by", "JSON", omit_none=True),
    Field("grant_id", "S", omit_none=True),
)


def to_item(charge: Charge) -> records.Item:
    """The charge's DynamoDB item."""
    return records.to_item(FIELDS, charge._asdict())


def from_item(item: records.Item) -> Charge:
    """A Charge from its DynamoDB item."""
    return Charge(**records.from_item(FIELDS, item))
