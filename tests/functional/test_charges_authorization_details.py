"""POST /charges under RFC 9396 `charge` details: only within them (currency, amount, max_charges over the grant),
beyond them 403 authorization_details_exceeded in every shape with nothing created and no budget spent; a replay
counts once; the charge records its grant; RFC 9470 step-up comes first; tokens without details are unchanged."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from bench.dynamodb_calls import counting
from tests.demo import ISSUER, WRITE, Demo, body, count_charges, headers
from tests.demo import post_charge as post
from tests.functional.authorization_details_support import EXCEEDED, SPENT_ONE, assert_exceeded

ORDER = {"type": "charge", "actions": ["create"], "amount": 1250, "currency": "usd", "description": "Order 1042",
         "max_charges": 1}


def token_for(grant_id: str, *entries: dict[str, Any], client: str = "demo-web", acr: str = "password") -> str:
    """An access token of alice's grant carrying `entries`, as the token endpoint signs it (the real signer)."""
    from authgate import clock
    from authgate.tokens.access_token import issue_access_token

    return issue_access_token(issuer=ISSUER, subject="alice", client_id=client, tenant="demo", scope=WRITE,
                              grant_id=grant_id, acr=acr, auth_time=clock.seconds(),
                              authorization_details=list(entries) or None).token


def used(grant_id: str) -> int:
    from authgate.stores.grant_budgets import GrantBudgetStore

    return GrantBudgetStore().used(grant_id)


def test_a_charge_within_the_details_is_created_and_records_its_grant(demo: Demo, invoke: Any) -> None:
    result = post(demo, invoke, token_for("g-within", ORDER), {"amount": 1250, "currency": "usd"})
    assert result["statusCode"] == 201, body(result)
    created = body(result)
    assert (created["amount"], created["grant_id"], created["created_by"]) == (
        1250, "g-within", {"sub": "alice", "act": None})
    shown = invoke("charges", demo.event("GET", f"/charges/{created['id']}"))
    assert (shown["statusCode"], body(shown)) == (200, created)
    assert used("g-within") == 1


@pytest.mark.parametrize(("client", "accept", "shape"), [
    ("demo-web", None, "problem"),
    ("demo-web", "application/vnd.api+json", "jsonapi"),
    ("demo-legacy-a", None, "legacy-a"),
    ("demo-legacy-b", None, "legacy-b"),
])
@pytest.mark.parametrize(("charge", "detail"), [
    ({"amount": 1251, "currency": "usd"},
     "The approved payment is at most 12.50 USD a charge; this charge is 12.51 USD."),
    ({"amount": 100, "currency": "eur"}, "The approved payment is in USD, not EUR."),
])
def test_beyond_the_details_is_refused_in_every_shape(demo: Demo, invoke: Any, client: str, accept: str | None,
                                                      shape: str, charge: dict[str, Any], detail: str) -> None:
    before = count_charges()
    grant = f"g-beyond-{shape}"
    assert_exceeded(post(demo, invoke, token_for(grant, ORDER, client=client), charge, key=f"k-{shape}",
                         accept=accept), detail, shape)
    assert (count_charges(), used(grant)) == (before, 0)


def test_details_without_a_charge_allow_no_charge(demo: Demo, invoke: Any) -> None:
    result = post(demo, invoke, token_for("g-files", {"type": "file_access", "folder": "x"}),
                  {"amount": 1, "currency": "usd"})
    assert_exceeded(result, "The access token's authorization_details allow no charge.")


def test_max_charges_counts_over_the_whole_grant(demo: Demo, invoke: Any) -> None:
    """Every token of one grant (a refresh's, an exchanged one's: the same grant_id) spends the same budget; a
    refused charge spends nothing, an idempotent replay of the allowed one returns it and counts once."""
    twice = {**ORDER, "max_charges": 2}
    first, refreshed = token_for("g-count", twice), token_for("g-count", twice)
    assert_exceeded(post(demo, invoke, first, {"amount": 9999, "currency": "usd"}),
                    "The approved payment is at most 12.50 USD a charge; this charge is 99.99 USD.")
    one = post(demo, invoke, first, {"amount": 1250, "currency": "usd"}, key="pay-1")
    replay = post(demo, invoke, first, {"amount": 1250, "currency": "usd"}, key="pay-1")
    assert (one["statusCode"], replay["statusCode"], headers(replay)["idempotent-replayed"], body(replay)) == (
        201, 201, "true", body(one))
    assert used("g-count") == 1
    two = post(demo, invoke, refreshed, {"amount": 500, "currency": "usd"})
    assert two["statusCode"] == 201
    before = count_charges()
    third = post(demo, invoke, refreshed, {"amount": 1, "currency": "usd"}, key="pay-3")
    assert_exceeded(third, SPENT_ONE.replace("the 1 charge ", "the 2 charges "))
    assert (count_charges(), used("g-count")) == (before, 2)
    # The refused key was not used: nothing was recorded for it.
    assert post(demo, invoke, token_for("g-other", ORDER), {"amount": 1, "currency": "usd"}, key="pay-3")[
        "statusCode"] == 201


def test_a_failed_charge_spends_nothing(demo: Demo, invoke: Any) -> None:
    """The budget is a member of the charge's transaction: a locked invoice cancels it all."""
    token = token_for("g-failed", {**ORDER, "amount": 5000})
    locked = post(demo, invoke, token, {"amount": 5000, "currency": "usd", "invoice_id": "inv_locked"})
    assert (locked["statusCode"], body(locked)["code"]) == (403, "invoice_locked")
    assert used("g-failed") == 0
    assert post(demo, invoke, token, {"amount": 5000, "currency": "usd"})["statusCode"] == 201
    assert_exceeded(post(demo, invoke, token, {"amount": 5000, "currency": "usd"}), SPENT_ONE)


def test_step_up_comes_first(demo: Demo, invoke: Any) -> None:
    """RFC 9470: at the tenant's threshold a password-only sign-in is challenged, even beyond the details."""
    result = post(demo, invoke, token_for("g-big", ORDER), {"amount": 20000, "currency": "usd"})
    assert (result["statusCode"], body(result)["code"]) == (401, "insufficient_user_authentication")
    assert used("g-big") == 0


def test_a_token_without_details_is_limited_by_scope_alone(demo: Demo, invoke: Any) -> None:
    for _ in range(3):
        result = post(demo, invoke, token_for("g-plain"), {"amount": 9000, "currency": "eur"})
        assert (result["statusCode"], body(result)["grant_id"]) == (201, None)
    assert used("g-plain") == 0


def test_enforcement_adds_no_dynamodb_call(demo: Demo, invoke: Any) -> None:
    """The budget is one more member of the charge's TransactWriteItems: the calls of any charge."""
    post(demo, invoke, demo.token(), {"amount": 1, "currency": "usd"})  # warm the caches
    with counting() as plain:
        assert post(demo, invoke, token_for("g-calls-0"), {"amount": 1, "currency": "usd"}, key="c0")[
            "statusCode"] == 201
    with counting() as detailed:
        assert post(demo, invoke, token_for("g-calls", ORDER), {"amount": 1, "currency": "usd"}, key="c1")[
            "statusCode"] == 201
    with counting() as refused:
        assert post(demo, invoke, token_for("g-calls", ORDER), {"amount": 1, "currency": "usd"}, key="c2")[
            "statusCode"] == 403
    assert plain.operations == detailed.operations == refused.operations == [
        "BatchGetItem", "UpdateItem", "TransactWriteItems"]


@pytest.mark.slow
def test_32_concurrent_charges_on_max_charges_2_create_exactly_2(demo: Demo, invoke: Any,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    for name in ("AUTHGATE_RATE_TENANT", "AUTHGATE_RATE_CLIENT", "AUTHGATE_RATE_IP"):
        monkeypatch.setenv(name, "10000")
    caches.reset()
    token = token_for("g-burst", {**ORDER, "max_charges": 2})
    before = count_charges()
    results: list[dict[str, Any]] = []
    barrier = threading.Barrier(32)

    def attempt(n: int) -> None:
        event = demo.event("POST", body={"amount": 1000, "currency": "usd"}, client=None,
                           headers={"Authorization": f"Bearer {token}", "Idempotency-Key": f"burst-{n}"})
        barrier.wait()
        results.append(invoke("charges", event))

    threads = [threading.Thread(target=attempt, args=(n,)) for n in range(32)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = sorted(r["statusCode"] for r in results)
    assert statuses == [201, 201] + [403] * 30, statuses
    assert all(body(r)["code"] == EXCEEDED for r in results if r["statusCode"] == 403)
    assert (count_charges() - before, used("g-burst")) == (2, 2)
