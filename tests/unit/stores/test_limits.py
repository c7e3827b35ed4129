"""stores.limits: every counter of a request in one conditional ADD; failed-auth counters read in one batch."""

from __future__ import annotations

import threading

import boto3
import pytest
from botocore.stub import Stubber

from authgate.stores.limits import LimitReached, LimitsStore, LimitsUnavailable

QUOTAS = {"total": 3, "c_a": 2}


def test_counts_rise_together_until_one_quota_is_reached(aws: None) -> None:
    store = LimitsStore()
    assert store.count("api#t1#60", QUOTAS, 200) == {"total": 1, "c_a": 1}
    assert store.count("api#t1#60", QUOTAS, 200) == {"total": 2, "c_a": 2}
    with pytest.raises(LimitReached) as info:
        store.count("api#t1#60", QUOTAS, 200)
    assert info.value.counts == {"total": 2, "c_a": 2}  # what tripped it, without a second read
    # A refused request is not counted; another client still fits the tenant's total.
    assert store.count("api#t1#60", {"total": 3, "c_b": 2}, 200) == {"total": 3, "c_b": 1}


@pytest.mark.slow
def test_under_concurrency_exactly_the_quota_is_admitted(aws: None) -> None:
    store = LimitsStore()
    admitted: list[int] = []

    def one() -> None:
        try:
            store.count("api#t1#120", {"total": 5}, 300)
            admitted.append(1)
        except LimitReached:
            pass

    threads = [threading.Thread(target=one) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(admitted) == 5


def test_failure_counters_are_added_then_read_in_one_call(aws: None) -> None:
    store = LimitsStore()
    store.add("authfail#client#x#0", "failures", 300)
    store.add("authfail#client#x#0", "failures", 300)
    store.add("authfail#ip#y#0", "failures", 300)
    assert store.read(["authfail#client#x#0", "authfail#ip#y#0", "authfail#ip#z#0"]) == {
        "authfail#client#x#0": 2, "authfail#ip#y#0": 1}
    item = boto3.client("dynamodb").get_item(TableName="LimitsTable", Key={"limit_key": {"S": "authfail#ip#y#0"}})
    assert item["Item"]["expires_at"] == {"N": "300"}


def test_a_throttled_table_is_limits_unavailable() -> None:
    client = boto3.client("dynamodb", region_name="us-east-1")
    store = LimitsStore(client, table="LimitsTable")
    with Stubber(client) as stub:
        stub.add_client_error("update_item", "ThrottlingException", http_status_code=400)
        stub.add_client_error("update_item", "ProvisionedThroughputExceededException", http_status_code=400)
        with pytest.raises(LimitsUnavailable):
            store.count("k", {"total": 1}, 60)
        with pytest.raises(LimitsUnavailable):
            store.add("k", "failures", 60)
