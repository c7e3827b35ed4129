"""DynamoDB calls per charges request, guard and limiter included (targets of issue 6).

Counted with botocore event hooks on the real client; warm means the client, tenant and key
caches are filled, as in a warm Lambda. `python -m bench.charges_calls` prints the same figures.
"""

from __future__ import annotations

from bench.dynamodb_calls import counting
from tests.functional.charges_support import body, demo  # noqa: F401

CHARGE = {"amount": 1050, "currency": "usd"}


def test_call_budget_per_operation(demo, invoke):
    invoke("charges", demo.event("POST", body=CHARGE))  # warm the caches

    with counting() as first:
        created = invoke("charges", demo.event("POST", body=CHARGE, headers={"Idempotency-Key": "budget"}))
    with counting() as replay:
        invoke("charges", demo.event("POST", body=CHARGE, headers={"Idempotency-Key": "budget"}))
    charge_id = body(created)["id"]
    with counting() as get:
        assert invoke("charges", demo.event("GET", f"/charges/{charge_id}"))["statusCode"] == 200
    with counting() as page:
        assert invoke("charges", demo.event("GET"))["statusCode"] == 200

    assert first.operations == ["BatchGetItem", "UpdateItem", "PutItem", "TransactWriteItems", "UpdateItem"]
    assert replay.operations == ["BatchGetItem", "UpdateItem", "PutItem"]
    assert get.operations == ["BatchGetItem", "UpdateItem", "GetItem"]
    assert page.operations == ["BatchGetItem", "UpdateItem", "Query"]
