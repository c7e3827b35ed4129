"""Partitions of a tenant's window: one tenant's quota spread over several DynamoDB items.

Why and how many: docs/capacity.md; the RateLimit `pk` parameter is draft-ietf-httpapi-ratelimit-headers-11.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass

from authgate.limits.policies import Policy


@dataclass(frozen=True)
class Partition:
    """Partition `index` of `count` of one tenant's window."""

    index: int
    count: int

    @property
    def key(self) -> str:
        """The RateLimit `pk` value (an sf-binary's bytes): opaque to clients, stable per client."""
        return base64.b64encode(f"{self.index}/{self.count}".encode("ascii")).decode("ascii")

    def share(self, quota: int) -> int:
        """This partition's exact share of `quota`: the shares of all partitions add up to it."""
        return quota // self.count + (1 if self.index < quota % self.count else 0)

    def tenant_policy(self, tenant: Policy) -> Policy:
        if self.count == 1:
            return tenant
        return tenant._replace(quota=self.share(tenant.quota), partition=self.key)

    def scoped(self, policy: Policy) -> Policy:
        """A policy counted within this partition (the per-IP quota)."""
        return policy if self.count == 1 else policy._replace(partition=self.key)


def partition_of(client_id: str, count: int) -> Partition:
    """The partition of `client_id` among `count` (a stable hash of the client id)."""
    if count == 1:
        return Partition(0, 1)
    digest = hashlib.blake2b(client_id.encode("utf-8"), digest_size=8).digest()
    return Partition(int.from_bytes(digest, "big") % count, count)
