"""DynamoDB calls per charges request, guard and limiter included (targets: issues 6 and 15).

Counted with botocore event hooks on the real client; warm means the client, tenant and key
caches are filled, as in a warm Lambda. `python -m bench.charges_calls` prints the same figures.
"""

from __future__ import annotations

from bench.dynamodb_calls import counting
from tests.demo import body

CHARGE = {"amount": 1050, "currency": "usd"}


def test_call_budget_per_operation(demo, invoke, audit_events):
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

    # The guard's BatchGetItem also reads the key's idempotency record (POST) or the charge (GET);
    # the limiter's UpdateItem counts the request; a first POST's one transaction writes the
    # charge with its record.
    assert first.operations == ["BatchGetItem", "UpdateItem", "TransactWriteItems"]  # its charge.created recorded too
    assert [e["action"] for e in audit_events()] == ["charge.created", "charge.created"]
    assert replay.operations == ["BatchGetItem", "UpdateItem"]
    assert get.operations == ["BatchGetItem", "UpdateItem"]
    assert page.operations == ["BatchGetItem", "UpdateItem", "Query"]
