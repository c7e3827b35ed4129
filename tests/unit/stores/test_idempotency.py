"""stores.idempotency: a key's record (its first response), claimed in the charge's transaction, live for 24 h."""

from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import ClientError

from authgate.billing import idempotency
from authgate.billing.idempotency import IdempotencyRecord, from_item, to_item
from authgate.stores.batch import BatchRead
from authgate.stores.idempotency import IdempotencyStore

NOW = 1_750_000_000
RECORD = IdempotencyRecord(digest="d1", request_hash="h1", tenant_id="t1", charge_id="ch_1", status=201,
                           body='{"id":"ch_1"}', expiration=NOW + idempotency.TTL_SECONDS)


def test_a_record_round_trips_and_expires() -> None:
    item = to_item(RECORD)
    assert item["id"] == {"S": "charge-for#d1"}
    assert from_item(item, NOW) == RECORD
    assert from_item(item, RECORD.expiration) == RECORD
    assert from_item(item, RECORD.expiration + 1) is None
    old = to_item(RECORD._replace(body=None))
    assert "body" not in old and from_item(old, NOW) == RECORD._replace(body=None)


def test_the_claim_fails_while_a_live_record_holds_the_key_and_returns_it(aws: None) -> None:
    ddb = boto3.client("dynamodb")
    ddb.transact_write_items(TransactItems=[IdempotencyStore().put_member(RECORD, NOW)])
    with pytest.raises(ClientError) as info:
        ddb.transact_write_items(TransactItems=[IdempotencyStore().put_member(RECORD._replace(charge_id="ch_2"), NOW)])
    assert info.value.response["Error"]["Code"] == "TransactionCanceledException"
    reads = BatchRead()
    pending = IdempotencyStore().prefetch(reads, "d1")
    reads.run()
    assert pending.item is not None and from_item(pending.item, NOW) == RECORD


def test_an_expired_record_frees_the_key(aws: None) -> None:
    ddb = boto3.client("dynamodb")
    ddb.transact_write_items(TransactItems=[IdempotencyStore().put_member(RECORD, NOW)])
    later = RECORD.expiration + 1
    ddb.transact_write_items(TransactItems=[IdempotencyStore().put_member(RECORD._replace(charge_id="ch_2", expiration=later + 60),
                                                       later)])
    reads = BatchRead()
    pending = IdempotencyStore().prefetch(reads, "d1")
    reads.run()
    assert pending.item is not None and from_item(pending.item, later) is not None
    assert from_item(pending.item, later).charge_id == "ch_2"  # type: ignore[union-attr]
