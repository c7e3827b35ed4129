"""Partitions of a tenant's window: how one tenant's quota spreads over several DynamoDB items.

One DynamoDB item takes about 1 000 writes per second (1 KB each), and every admitted request
can add a counter to its item (a new client or address), so one item per (tenant, window)
caps a tenant at a few hundred requests per second. A tenant whose quota needs more is split
into N partitions, each its own item with an exact share of the tenant quota (the shares add up
to the quota, so the tenant is never admitted past it):

    N = max(1, ceil(quota / PARTITION_QUOTA_MAX), ceil(quota / window / PARTITION_WRITE_RATE))

A request's partition is a stable hash of its client id, so every counter a client needs lives
in one item: the client quota stays exact and its RateLimit fields stay consistent from one
response to the next. What a partition means for the other two quotas:

- tenant: a partition admits at most its share. Clients that hash into one partition share it;
  a tenant whose traffic comes from few clients can be refused before the tenant total reaches
  the quota. The RateLimit fields say so: the "tenant" policy's `q` is the share and its `pk`
  names the partition (draft-ietf-httpapi-ratelimit-headers-11, the partition key parameter:
  "quotas are allocated per partition key");
- ip: counted within the partition (an address calling through clients of k partitions may
  spend k times its quota); the "ip" policy carries the same `pk`.

With the defaults (3 000 requests per 60 s) N is 1 and nothing of this shows: one item, every
quota exact, no `pk`, exactly as before partitions existed.
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
