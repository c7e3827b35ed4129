"""Names of the limiters' items and of the counters kept in them (LimitsTable, authgate.stores.limits).

Client ids and IP addresses are stored as short keyed-free hashes, not raw: every counter then
costs a bounded ~18 bytes (so an item's admissions bound its size, settings.PARTITION_QUOTA_MAX),
and the limits table holds no raw IP addresses.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from authgate import base64url
from authgate.caches import cached

if TYPE_CHECKING:  # types only: the failed-auth guard (token function) never loads partitions
    from authgate.limits.partitions import Partition
    from authgate.limits.window import Window


# A warm function sees the same few clients and addresses request after request.
@cached(maxsize=4096)
def digest(value: str) -> str:
    """12 URL-safe characters (72 bits) identifying `value` within one window item."""
    raw = hashlib.blake2b(value.encode("utf-8"), digest_size=9).digest()
    return base64url.encode(raw)  # 9 bytes: 12 characters, no padding either way


def client_counter(client_id: str) -> str:
    return "c_" + digest(client_id)


def ip_counter(source_ip: str) -> str:
    return "i_" + digest(source_ip or "unknown")


TENANT_COUNTER = "total"


def api_key(tenant: str, window: Window, partition: Partition) -> str:
    """The item of one partition of a tenant's window (one partition: no suffix, as ever)."""
    base = f"api#{tenant}#{window.start}"
    return base if partition.count == 1 else f"{base}#p{partition.index}of{partition.count}"


def failure_key(kind: str, subject: str, window: Window) -> str:
    """The item counting failed authentications of one subject: `kind` is "client", "user", "reset", ... or
    "client-ip", "user-ip", ... for the address counter of each kind."""
    return f"authfail#{kind}#{digest(subject)}#{window.start}"
