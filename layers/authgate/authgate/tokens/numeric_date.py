"""NumericDate (RFC 7519 2): a JSON number of seconds since the epoch, finite and within reason.

A claim a client controls is one: `exp`, `iat`, `nbf` of a client assertion or a DPoP proof.
Booleans are not numbers (JSON true is not 1); NaN and the infinities are not JSON numbers at
all (RFC 8259 6), and a value past year 9999 is no date anyone means: all are refused here, so
no comparison or conversion later meets one.
"""

from __future__ import annotations

import math
from typing import Any

# 9999-12-31T23:59:59Z: the last second of a four-digit year.
LATEST = 253_402_300_799


def numeric_date(value: Any) -> int | float | None:
    """`value` when it is a usable NumericDate (finite, 0 to LATEST, not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value if 0 <= value <= LATEST else None
