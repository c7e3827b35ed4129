"""Idempotency-Key on POST /charges (contract 7.6, "Charges and idempotency").

One mechanism: the key's record is written in the charge's own transaction and read with the
guard's batch read (authgate.charges.idempotency). Timeouts are simulated the way Lambda
produces them: the runtime stops the invocation at some point (here a botocore hook raising a
BaseException that no `except Exception` catches, right after or before the charge
transaction), leaving whatever was written.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.contract import check_proxy_result
from tests.demo import body, count_charges, headers

CHARGE = {"amount": 1050, "currency": "usd", "description": "Order 42"}


class LambdaTimedOut(BaseException):
    """The runtime ended the invocation (a timeout): nothing after this point runs."""


@contextmanager
def on_dynamodb(event: str, action) -> Iterator[None]:
    """Run `action` on a botocore event of the shared DynamoDB client (e.g. after-call.dynamodb.X)."""
    from authgate import aws

    events = aws.dynamodb().meta.events
    events.register(event, action, unique_id="charges-test-hook")
    try:
        yield
    finally:
        events.unregister(event, unique_id="charges-test-hook")


def timeout(**_: Any) -> None:
    raise LambdaTimedOut()


def post(demo, key: str | None = "order-42", payload: dict | None = None, client: str = "demo-service",
         raw: str | None = None) -> dict:
    extra = {"Idempotency-Key": key} if key is not None else {}
    if raw is not None:
        return demo.event("POST", raw_body=raw, client=client, headers={**extra, "Content-Type": "application/json"})
    return demo.event("POST", body=payload or CHARGE, client=client, headers=extra)


def run(event: dict) -> dict:
    """The charges handler on one event, outside `invoke` (a timed-out call has no result to check)."""
    from authgate_cli.local.functions import load_handler

    result = load_handler("charges")(event, None)
    check_proxy_result(result)
    return result


def records() -> list[dict[str, Any]]:
    from boto3.dynamodb.types import TypeDeserializer

    from authgate import aws
    from authgate.settings import get_settings

    items = aws.dynamodb().scan(TableName=get_settings().tables.idempotency)["Items"]
    return [TypeDeserializer().deserialize({"M": item}) for item in items]


def without_request_id(result: dict) -> dict:
    """The result minus what differs per request: its id, the replay flag, the remaining quota."""
    varying = ("x-request-id", "idempotent-replayed", "ratelimit")
    hdrs = {k: v for k, v in result["multiValueHeaders"].items() if k.lower() not in varying}
    return {**result, "multiValueHeaders": hdrs}


def test_retry_with_same_key_and_body_replays_201(demo, invoke):
    first = invoke("charges", post(demo))
    again = invoke("charges", post(demo))
    assert first["statusCode"] == again["statusCode"] == 201
    assert headers(again)["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in headers(first)
    assert without_request_id(again) == without_request_id(first)  # status, Location, body
    assert count_charges() == 1


def test_member_order_and_spacing_do_not_change_the_fingerprint(demo, invoke):
    first = body(invoke("charges", post(demo)))
    raw = '{ "description": "Order 42",\n "currency": "usd", "amount": 1050 }'
    again = invoke("charges", post(demo, raw=raw))
    assert (again["statusCode"], body(again)) == (201, first)
    assert headers(again)["idempotent-replayed"] == "true"


def test_same_key_different_body_is_422(demo, invoke):
    assert invoke("charges", post(demo))["statusCode"] == 201
    result = invoke("charges", post(demo, payload={**CHARGE, "amount": 1051}))
    assert result["statusCode"] == 422
    problem = body(result)
    assert (problem["code"], problem["title"], problem["detail"]) == (
        "idempotency_key_reused", "Idempotency-Key reused",
        "This Idempotency-Key was already used with a different request body.")
    assert count_charges() == 1


def test_key_is_scoped_to_the_client(demo, invoke):
    mine = invoke("charges", post(demo, client="demo-service"))
    theirs = invoke("charges", post(demo, client="demo-legacy-a"))
    assert mine["statusCode"] == theirs["statusCode"] == 201
    assert "idempotent-replayed" not in headers(theirs)
    assert body(mine)["id"] != body(theirs)["id"]
    assert count_charges() == 2


def test_without_a_key_every_post_creates_a_charge(demo, invoke):
    ids = {body(invoke("charges", post(demo, key=None)))["id"] for _ in range(3)}
    assert len(ids) == 3 and count_charges() == 3


def test_records_expire_after_24_hours_and_never_hold_the_raw_key(demo, invoke):
    first = invoke("charges", post(demo, key="secret-looking-key"))
    now = time.time()
    stored = records()
    assert len(stored) == 1  # one mechanism: the record written with the charge
    record = stored[0]
    assert now + 24 * 3600 - 60 <= record["expiration"] <= now + 24 * 3600 + 5
    assert "secret-looking-key" not in json.dumps(record, default=str)
    assert record["id"].startswith("charge-for#") and record["charge_id"] == body(first)["id"]
    assert (record["status"], record["body"]) == (201, first["body"])  # the response, byte for byte

    # A day later (TTL may lag, so the record is only expired, not deleted) the key is free.
    from authgate import aws
    from authgate.settings import get_settings

    aws.dynamodb().update_item(TableName=get_settings().tables.idempotency, Key={"id": {"S": record["id"]}},
                               UpdateExpression="SET expiration = :past",
                               ExpressionAttributeValues={":past": {"N": str(int(now) - 1)}})
    later = invoke("charges", post(demo, key="secret-looking-key"))
    assert later["statusCode"] == 201 and "idempotent-replayed" not in headers(later)
    assert body(later)["id"] != body(first)["id"]
    assert count_charges() == 2


def test_failed_attempts_are_not_stored(demo, invoke):
    """A 4xx changes nothing, so the key stays usable: a retry runs again."""
    locked = {"amount": 100, "currency": "usd", "invoice_id": "inv_locked"}
    assert body(invoke("charges", post(demo, payload=locked)))["code"] == "invoice_locked"
    assert body(invoke("charges", post(demo, payload=locked)))["code"] == "invoice_locked"

    from authgate.billing.invoice import Invoice
    from authgate.stores.invoices import InvoiceStore

    InvoiceStore().put(Invoice("demo", "inv_locked", "open"))
    result = invoke("charges", post(demo, payload=locked))
    assert result["statusCode"] == 201 and "idempotent-replayed" not in headers(result)

    # Invalid bodies never reach the idempotency layer either.
    assert invoke("charges", post(demo, key="k2", payload={"amount": 0, "currency": "usd"}))["statusCode"] == 422
    assert "idempotent-replayed" not in headers(invoke("charges", post(demo, key="k2")))
    assert count_charges() == 2


def test_a_duplicate_that_wins_the_race_answers_the_first_too(demo, invoke):
    """Two requests with one key in flight at once: the first to commit makes the charge, the other
    gets its response (a replay); the same key with another body is 422 either way."""
    seen: dict[str, dict] = {}
    started: list[bool] = []

    def meanwhile(**_: Any) -> None:
        if not started:  # the nested requests also write; only the first attempt's write triggers this
            started.append(True)
            seen["same"] = invoke("charges", post(demo))
            seen["other_body"] = invoke("charges", post(demo, payload={**CHARGE, "amount": 1}))

    with on_dynamodb("before-call.dynamodb.TransactWriteItems", meanwhile):
        first = invoke("charges", post(demo))
    winner = seen["same"]
    assert winner["statusCode"] == 201 and "idempotent-replayed" not in headers(winner)
    assert first["statusCode"] == 201 and headers(first)["idempotent-replayed"] == "true"
    assert without_request_id(first) == without_request_id(winner)  # status, Location, body
    loser = seen["other_body"]
    assert (loser["statusCode"], body(loser)["code"]) == (422, "idempotency_key_reused")
    assert count_charges() == 1


def test_a_conflicting_transaction_on_the_key_is_409_with_retry_after(demo, invoke):
    """Real DynamoDB may cancel a transaction whose record another in-flight transaction holds
    (TransactionConflict): the client is told to retry, and nothing was written."""
    from botocore.exceptions import ClientError

    def conflict(**_: Any) -> None:
        raise ClientError({"Error": {"Code": "TransactionCanceledException", "Message": "conflict"},
                           "CancellationReasons": [{"Code": "None"}, {"Code": "TransactionConflict"}]},
                          "TransactWriteItems")

    with on_dynamodb("before-call.dynamodb.TransactWriteItems", conflict):
        busy = invoke("charges", post(demo))
    assert busy["statusCode"] == 409
    assert (headers(busy)["retry-after"], headers(busy)["content-type"]) == ("1", "application/problem+json")
    problem = body(busy)
    assert (problem["code"], problem["status"], problem["detail"]) == (
        "idempotency_request_in_progress", 409, "A request with this Idempotency-Key is still being processed.")
    assert count_charges() == 0
    retry = invoke("charges", post(demo))
    assert retry["statusCode"] == 201 and "idempotent-replayed" not in headers(retry)
    assert count_charges() == 1


def test_timeout_after_the_charge_then_retry_with_same_key_returns_that_charge(demo):
    """Contract 7.6: first call timed out (client saw 504), retry with the same key: no duplicate,
    and no waiting: the record was written with the charge."""
    with on_dynamodb("after-call.dynamodb.TransactWriteItems", timeout), pytest.raises(LambdaTimedOut):
        run(post(demo))
    assert count_charges() == 1
    written = body(run(post(demo, key=None)))  # (an unrelated charge, for contrast)
    assert count_charges() == 2

    retry = run(post(demo))
    assert retry["statusCode"] == 201
    assert headers(retry)["idempotent-replayed"] == "true"
    charge = body(retry)
    assert charge["id"] != written["id"] and charge["amount"] == 1050
    assert headers(retry)["location"].endswith(f"/charges/{charge['id']}")
    assert count_charges() == 2  # no second charge for the key

    replay = run(post(demo))
    assert (replay["statusCode"], body(replay)) == (201, charge)
    assert count_charges() == 2


def test_timeout_then_retry_with_a_new_key_creates_a_second_charge(demo):
    """Contract 7.6: first call timed out, retry with a new key: a duplicate (by design)."""
    with on_dynamodb("after-call.dynamodb.TransactWriteItems", timeout), pytest.raises(LambdaTimedOut):
        run(post(demo, key="first"))
    retry = run(post(demo, key="second"))
    assert retry["statusCode"] == 201 and "idempotent-replayed" not in headers(retry)
    assert count_charges() == 2


def test_timeout_before_the_charge_then_retry_creates_it_once(demo):
    with on_dynamodb("before-call.dynamodb.TransactWriteItems", timeout), pytest.raises(LambdaTimedOut):
        run(post(demo))
    assert count_charges() == 0
    retry = run(post(demo))
    assert retry["statusCode"] == 201 and "idempotent-replayed" not in headers(retry)
    assert count_charges() == 1


def test_timeout_after_paying_an_invoice_then_retry_returns_the_charge(demo):
    payload = {"amount": 700, "currency": "usd", "invoice_id": "inv_open"}
    with on_dynamodb("after-call.dynamodb.TransactWriteItems", timeout), pytest.raises(LambdaTimedOut):
        run(post(demo, payload=payload))
    retry = run(post(demo, payload=payload))
    assert retry["statusCode"] == 201  # not invoice_already_paid: it was paid by this very charge
    assert body(retry)["invoice_id"] == "inv_open"
    assert count_charges() == 1


def test_timeout_then_retry_with_same_key_but_other_body_is_422(demo):
    with on_dynamodb("after-call.dynamodb.TransactWriteItems", timeout), pytest.raises(LambdaTimedOut):
        run(post(demo))
    result = run(post(demo, payload={**CHARGE, "amount": 9}))
    assert (result["statusCode"], body(result)["code"]) == (422, "idempotency_key_reused")
    assert count_charges() == 1


def test_throttled_write_is_503_and_the_key_stays_usable(demo, invoke):
    from botocore.exceptions import ClientError

    def throttle(**_: Any) -> None:
        raise ClientError({"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"}},
                          "TransactWriteItems")

    with on_dynamodb("before-call.dynamodb.TransactWriteItems", throttle):
        result = invoke("charges", post(demo))
    assert result["statusCode"] == 503
    assert headers(result)["retry-after"] == "1"
    assert body(result)["code"] == "service_unavailable"
    assert count_charges() == 0
    retry = invoke("charges", post(demo))
    assert retry["statusCode"] == 201 and "idempotent-replayed" not in headers(retry)
    assert count_charges() == 1


def test_a_record_written_before_records_kept_the_response_still_replays(demo, invoke):
    """A deployment's first day: a key's record from before the response was recorded (no body)
    names its charge; the retry gets that charge, never a second one."""
    from authgate import aws
    from authgate.charges.idempotency import digest, fingerprint
    from authgate.settings import get_settings

    first = invoke("charges", post(demo, key=None))
    charge = body(first)
    aws.dynamodb().put_item(TableName=get_settings().tables.idempotency, Item={
        "id": {"S": "charge-for#" + digest("demo-service", "order-42")},
        "tenant_id": {"S": "demo"}, "charge_id": {"S": charge["id"]},
        "request_hash": {"S": fingerprint(CHARGE)}, "expiration": {"N": str(int(time.time()) + 3600)}})
    retry = invoke("charges", post(demo))
    assert (retry["statusCode"], body(retry)) == (201, charge)
    assert headers(retry)["idempotent-replayed"] == "true"
    assert headers(retry)["location"].endswith(f"/charges/{charge['id']}")
    assert count_charges() == 1
