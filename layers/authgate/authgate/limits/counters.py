"""Names of the counters kept in a limiter item.

Client ids and IP addresses are stored as short keyed-free hashes, not raw: every counter then
costs a bounded ~16 bytes (so the tenant quota bounds the item size, settings.MAX_TENANT_QUOTA),
and the limits table holds no raw IP addresses.
"""

from __future__ import annotations

import base64
import hashlib


def digest(value: str) -> str:
    """12 URL-safe characters (72 bits) identifying `value` within one window item."""
    raw = hashlib.blake2b(value.encode("utf-8"), digest_size=9).digest()
    return base64.urlsafe_b64encode(raw).decode("ascii")


def client_counter(client_id: str) -> str:
    return "c_" + digest(client_id)


def ip_counter(source_ip: str) -> str:
    return "i_" + digest(source_ip or "unknown")


TENANT_COUNTER = "total"
