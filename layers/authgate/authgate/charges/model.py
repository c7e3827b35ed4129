"""The charge resource: its identifier, its fields and its JSON representation."""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from typing import Any

# Amounts are integers in the currency's minor unit; the ceiling keeps every amount exact in
# JSON numbers and in any client's int32-or-wider type, and matches common card-network limits.
MAX_AMOUNT = 99_999_999
MAX_DESCRIPTION = 500

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
# "ch_" + a ULID: 48-bit millisecond time then 80 random bits, Crockford base32. Ids sort by
# creation time, so one DynamoDB Query in reverse key order lists newest first.
CHARGE_ID = re.compile(r"^ch_[0-9A-HJKMNP-TV-Z]{26}$")


def new_charge_id(now_ms: int | None = None) -> str:
    """A new, time-ordered charge id (ULID layout)."""
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    value = (ms << 80) | int.from_bytes(os.urandom(10), "big")
    chars = []
    for _ in range(26):
        chars.append(_CROCKFORD[value & 31])
        value >>= 5
    return "ch_" + "".join(reversed(chars))


def is_charge_id(value: str) -> bool:
    return bool(CHARGE_ID.match(value))


@dataclass(frozen=True)
class Charge:
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

    def to_json(self) -> dict[str, Any]:
        """The public representation (every member always present; null when unset)."""
        return {
            "id": self.charge_id,
            "object": "charge",
            "amount": self.amount,
            "currency": self.currency,
            "description": self.description,
            "invoice_id": self.invoice_id,
            "status": self.status,
            "created": self.created,
        }
