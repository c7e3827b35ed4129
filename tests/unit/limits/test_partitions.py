"""Partitions of a tenant's window: how many, exact shares, stable client placement, no hot item."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from authgate.limits.partitions import Partition, partition_of
from authgate.limits.policies import Policy, api_policies, count_for
from authgate.settings import MAX_TENANT_QUOTA, PARTITION_QUOTA_MAX, PARTITION_WRITE_RATE, from_env


@pytest.mark.parametrize(("quota", "window", "expected"), [
    (3000, 60, 1),          # the default: one item, exactly as before partitions
    (10_000, 60, 1),        # the most one item carries per window
    (10_001, 60, 2),        # by size
    (600_000, 60, 60),      # 10 000 req/s over a minute: by size (10 000 admissions per item)
    (100_000, 10, 20),      # 10 000 req/s over 10 s: by rate (500 writes/s per item)
    (1000, 1, 2),           # 1 000 req/s in 1 s windows: by rate
    (MAX_TENANT_QUOTA, 60, 256),
])
def test_partition_count_follows_the_tenant_quota(quota: int, window: int, expected: int) -> None:
    assert count_for(Policy("tenant", quota, window)) == expected


@given(quota=st.integers(1, MAX_TENANT_QUOTA), window=st.integers(1, 3600))
def test_no_partition_admits_more_than_one_item_can_take(quota: int, window: int) -> None:
    count = count_for(Policy("tenant", quota, window))
    biggest = Partition(0, count).share(quota)  # partition 0 gets any remainder first
    assert biggest <= PARTITION_QUOTA_MAX
    assert biggest / window <= PARTITION_WRITE_RATE + 1 / window  # rounding of the share


@given(quota=st.integers(1, 10**7), count=st.integers(1, 256))
def test_shares_add_up_to_the_quota_exactly(quota: int, count: int) -> None:
    shares = [Partition(i, count).share(quota) for i in range(count)]
    assert sum(shares) == quota
    assert max(shares) - min(shares) <= 1


def test_a_client_always_lands_in_the_same_partition_and_clients_spread() -> None:
    placements = [partition_of(f"client-{n}", 60).index for n in range(6000)]
    assert placements == [partition_of(f"client-{n}", 60).index for n in range(6000)]
    load = Counter(placements)
    assert len(load) == 60
    assert max(load.values()) < 1.5 * 6000 / 60  # a hash, not a hot spot


def test_one_partition_policies_are_unchanged_and_several_carry_the_partition_key() -> None:
    tenant = Policy("tenant", 3000, 60)
    assert partition_of("demo-service", 1) == Partition(0, 1)
    assert Partition(0, 1).tenant_policy(tenant) == tenant
    many = partition_of("demo-service", 60)
    policy = many.tenant_policy(Policy("tenant", 600_000, 60))
    assert policy.quota == 10_000 and policy.window == 60
    assert policy.partition == many.key and many.key  # base64 of "index/count"
    import base64

    assert base64.b64decode(many.key).decode() == f"{many.index}/60"


def test_settings_split_a_ten_thousand_per_second_tenant_into_cool_items() -> None:
    settings = from_env({"AUTHGATE_RATE_TENANT": "600000", "AUTHGATE_RATE_WINDOW": "60",
                         "AUTHGATE_RATE_CLIENT": "10000"})
    policies = api_policies(settings)
    assert policies.partitions == 60
    per_item_per_second = math.ceil(600_000 / 60) / 60
    assert per_item_per_second <= PARTITION_WRITE_RATE  # ~167 writes/s per item, not 10 000
