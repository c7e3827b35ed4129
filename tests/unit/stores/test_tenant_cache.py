"""authgate.stores.tenant_cache: a tenant read at most once per TTL per warm process."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from botocore.exceptions import ClientError

from authgate.clock import ManualClock
from authgate.stores import tenant_cache
from authgate.stores.exceptions import StorageUnavailable
from authgate.stores.tenants import TenantStore
from authgate.tenants.model import Tenant


def test_reads_once_within_the_ttl_then_again(reads: Counter[str], clock: ManualClock) -> None:
    TenantStore().put(Tenant("t1", currencies=("usd",), forbidden_scopes=frozenset({"charges:refund"})))
    reads.clear()
    first = tenant_cache.get_tenant("t1")
    clock.advance(tenant_cache.TTL_SECONDS - 1)
    assert tenant_cache.get_tenant("t1") == first
    assert reads == Counter({"GetItem": 1})

    TenantStore().put(Tenant("t1", currencies=("usd",)))  # the scope is no longer forbidden
    clock.advance(1)
    assert tenant_cache.get_tenant("t1").forbidden_scopes == frozenset()
    assert reads == Counter({"GetItem": 2, "PutItem": 1})


def test_unknown_tenant_is_cached_as_unknown(reads: Counter[str], clock: ManualClock) -> None:
    assert tenant_cache.get_tenant("nobody") is None
    assert tenant_cache.get_tenant("nobody") is None
    assert reads == Counter({"GetItem": 1})


def test_a_throttled_read_is_not_cached(aws: None, clock: ManualClock) -> None:
    from authgate.aws import dynamodb

    TenantStore().put(Tenant("t1"))
    client = dynamodb()

    def throttle(**_: Any) -> None:
        raise ClientError({"Error": {"Code": "ThrottlingException", "Message": "slow down"}}, "GetItem")

    client.meta.events.register("before-call.dynamodb.GetItem", throttle, unique_id="throttle")
    with pytest.raises(StorageUnavailable) as raised:
        tenant_cache.get_tenant("t1")
    assert raised.value.reason == "ThrottlingException"
    client.meta.events.unregister("before-call.dynamodb.GetItem", unique_id="throttle")
    assert tenant_cache.get_tenant("t1") == Tenant("t1")
