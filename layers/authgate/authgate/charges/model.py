"""The charge resource: its identifier and its JSON representation (the stored record is billing.charge.Charge)."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from authgate import clock

if TYPE_CHECKING:
    from authgate.billing.charge import Charge

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
    ms = clock.millis() if now_ms is None else now_ms
    value = (ms << 80) | int.from_bytes(os.urandom(10), "big")
    chars = []
    for _ in range(26):
        chars.append(_CROCKFORD[value & 31])
        value >>= 5
    return "ch_" + "".join(reversed(chars))


def is_charge_id(value: str) -> bool:
    return bool(CHARGE_ID.match(value))


def representation(charge: Charge) -> dict[str, Any]:
    """The public JSON of a charge (every member always present; null when unset)."""
    return {
        "id": charge.charge_id,
        "object": "charge",
        "amount": charge.amount,
        "currency": charge.currency,
        "description": charge.description,
        "invoice_id": charge.invoice_id,
        "status": charge.status,
        "created": charge.created,
        # Who created it: the token's sub and, through a token exchange, who acted (RFC 8693 4.1 act).
        "created_by": charge.created_by,
        # The grant whose approved payment it used (RFC 9396 charge details; docs/payments-consent.md), else null.
        "grant_id": charge.grant_id,
    }
