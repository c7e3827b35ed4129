"""ULIDs: 48 bits of milliseconds since the epoch, then 80 random bits, in Crockford's base32.

Twenty-six characters that sort by the time they were made (to the millisecond): charge ids
("ch_" + a ULID, listed newest first by one DynamoDB Query) and audit event ids.
"""

from __future__ import annotations

import os

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
PATTERN = "[0-9A-HJKMNP-TV-Z]{26}"


def ulid(ms: int) -> str:
    """A new ULID for the instant `ms` (milliseconds since the epoch)."""
    value = (ms << 80) | int.from_bytes(os.urandom(10), "big")
    chars = []
    for _ in range(26):
        chars.append(_CROCKFORD[value & 31])
        value >>= 5
    return "".join(reversed(chars))
