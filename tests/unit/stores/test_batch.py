"""stores.batch: the reads of several tables in one strongly consistent BatchGetItem."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from authgate.stores.batch import MAX_KEYS, BatchRead
from authgate.stores.exceptions import StorageUnavailable


def put(table: str, item: dict[str, Any]) -> None:
    boto3.client("dynamodb").put_item(TableName=table, Item=item)


class Counting:
    """The real moto-backed client, counting BatchGetItem calls."""

    def __init__(self) -> None:
        self.client = boto3.client("dynamodb")
        self.calls: list[dict[str, Any]] = []

    def batch_get_item(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        return self.client.batch_get_item(**kwargs)


def test_keys_of_several_tables_are_read_in_one_call(aws: None) -> None:
    put("TenantsTable", {"tenant_id": {"S": "t1"}, "name": {"S": "One"}})
    put("RevocationsTable", {"revocation_id": {"S": "jti#a"}, "expires_at": {"N": "9"}})
    client = Counting()
    reads = BatchRead(client)
    tenant = reads.add("TenantsTable", {"tenant_id": {"S": "t1"}})
    revoked = reads.add("RevocationsTable", {"revocation_id": {"S": "jti#a"}})
    absent = reads.add("RevocationsTable", {"revocation_id": {"S": "jti#b"}})
    reads.run()
    assert len(client.calls) == 1
    assert client.calls[0]["RequestItems"]["TenantsTable"]["ConsistentRead"] is True
    assert tenant.item == {"tenant_id": {"S": "t1"}, "name": {"S": "One"}}
    assert revoked.item is not None and revoked.item["expires_at"] == {"N": "9"}
    assert absent.item is None


def test_a_key_registered_twice_is_asked_for_once(aws: None) -> None:
    put("TenantsTable", {"tenant_id": {"S": "t1"}})
    client = Counting()
    reads = BatchRead(client)
    first = reads.add("TenantsTable", {"tenant_id": {"S": "t1"}})
    second = reads.add("TenantsTable", {"tenant_id": {"S": "t1"}})
    reads.run()
    assert client.calls[0]["RequestItems"]["TenantsTable"]["Keys"] == [{"tenant_id": {"S": "t1"}}]
    assert first.item == second.item == {"tenant_id": {"S": "t1"}}


def test_a_composite_key_is_matched_whatever_the_order_of_its_names(aws: None) -> None:
    item = {"tenant_id": {"S": "t1"}, "charge_id": {"S": "ch_1"}, "amount": {"N": "5"}}
    put("ChargesTable", item)
    reads = BatchRead(Counting())
    pending = reads.add("ChargesTable", {"charge_id": {"S": "ch_1"}, "tenant_id": {"S": "t1"}})
    reads.run()
    assert pending.item == item


def test_no_key_means_no_call_and_run_is_idempotent(aws: None) -> None:
    client = Counting()
    reads = BatchRead(client)
    reads.run()
    reads.run()
    assert client.calls == []


def test_the_order_of_add_run_and_item_is_enforced(aws: None) -> None:
    reads = BatchRead(Counting())
    pending = reads.add("TenantsTable", {"tenant_id": {"S": "t1"}})
    with pytest.raises(RuntimeError, match="before run"):
        _ = pending.item
    reads.run()
    with pytest.raises(RuntimeError, match="after run"):
        reads.add("TenantsTable", {"tenant_id": {"S": "t2"}})


def test_more_keys_than_one_call_takes_are_refused() -> None:
    reads = BatchRead(object())
    for n in range(MAX_KEYS):
        reads.add("TenantsTable", {"tenant_id": {"S": f"t{n}"}})
    with pytest.raises(ValueError, match="at most 100 keys"):
        reads.add("TenantsTable", {"tenant_id": {"S": "one-too-many"}})


def stubbed() -> tuple[Any, Stubber]:
    client = boto3.client("dynamodb", region_name="us-east-1")
    return client, Stubber(client)


def test_unprocessed_keys_are_asked_for_once_more() -> None:
    client, stub = stubbed()
    key = {"tenant_id": {"S": "t1"}}
    request = {"TenantsTable": {"Keys": [key], "ConsistentRead": True}}
    stub.add_response("batch_get_item", {"Responses": {}, "UnprocessedKeys": request}, {"RequestItems": request})
    stub.add_response("batch_get_item", {"Responses": {"TenantsTable": [{**key, "name": {"S": "One"}}]}},
                      {"RequestItems": request})
    with stub:
        reads = BatchRead(client)
        pending = reads.add("TenantsTable", key)
        reads.run()
    stub.assert_no_pending_responses()
    assert pending.item == {**key, "name": {"S": "One"}}


def test_keys_still_unprocessed_after_the_retry_are_an_outage() -> None:
    client, stub = stubbed()
    request = {"TenantsTable": {"Keys": [{"tenant_id": {"S": "t1"}}], "ConsistentRead": True}}
    for _ in range(2):
        stub.add_response("batch_get_item", {"Responses": {}, "UnprocessedKeys": request}, {"RequestItems": request})
    with stub:
        reads = BatchRead(client, operation="guard.batch")
        reads.add("TenantsTable", {"tenant_id": {"S": "t1"}})
        with pytest.raises(StorageUnavailable) as info:
            reads.run()
    assert (info.value.operation, info.value.reason) == ("guard.batch", "unprocessed keys")


def test_throttling_is_an_outage_not_a_crash() -> None:
    client, stub = stubbed()
    stub.add_client_error("batch_get_item", "ProvisionedThroughputExceededException", http_status_code=400)
    with stub:
        reads = BatchRead(client)
        reads.add("TenantsTable", {"tenant_id": {"S": "t1"}})
        with pytest.raises(StorageUnavailable):
            reads.run()
