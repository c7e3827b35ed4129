"""DynamoDB faults at every step of the code exchange, refresh, revocation and idempotent charge.

For each flow the DynamoDB calls of a cold, successful run are recorded; then, for every call
index and every error (ProvisionedThroughputExceeded, Throttling, InternalServerError, read
timeout), a fresh run fails exactly that call. Each answer must be a documented 503
(`temporarily_unavailable` on OAuth routes, `service_unavailable` problem on the API, with
Retry-After) or a success the fault did not touch (the limiter fails open), contract-clean; and
afterwards the state must be consistent:
- code exchange: at most one success per code; if the failed attempt consumed the code, the
  retry is invalid_grant and the client restarts the flow; never a usable token without a
  consumed code;
- refresh: at most one rotation per token; a lost rotation makes the retry invalid_grant
  (reuse detection) and the family is revoked;
- revocation: a retry succeeds and the token is then inactive;
- charge with Idempotency-Key: retries with the same key end in exactly one charge, and the
  key never blocks retries beyond the invocation's time budget.
Each test prints what each step left behind (the `outcomes` fixture; docs/operations.md quotes
the table; run with -s to see it).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from tests.contract import check_proxy_result
from tests.demo import Demo
from tests.faults.injection import ERRORS, Outcomes, dynamodb_calls
from tests.functional.token_support import TokenClient, body_of, new_code

# Slow: each flow runs again with a fault injected at every call it makes.
pytestmark = pytest.mark.slow


def cold() -> None:
    """Forget warm caches (clients, keys), so a run makes every call a cold start makes."""
    from authgate import caches

    caches.reset()


def assert_unavailable(result: dict[str, Any], oauth: bool) -> None:
    headers = {k.lower(): v[-1] for k, v in result["multiValueHeaders"].items()}
    assert result["statusCode"] == 503, (result["statusCode"], result["body"][:300])
    assert int(headers["retry-after"]) >= 1
    body = json.loads(result["body"])
    if oauth:
        assert body["error"] == "temporarily_unavailable"
    else:
        assert (body["code"], headers["content-type"]) == ("service_unavailable", "application/problem+json")


def steps(run: Callable[[], dict[str, Any]]) -> list[tuple[str, str]]:
    cold()
    with dynamodb_calls() as calls:
        result = run()
    assert result["statusCode"] in (200, 201), result["body"][:300]
    return calls.calls


# ---------------------------------------------------------------- code exchange
def test_code_exchange(tokens: TokenClient, outcomes: Outcomes) -> None:
    calls = steps(lambda: tokens.exchange(new_code()))
    assert len(calls) >= 3
    for at in range(len(calls)):
        for error in ERRORS:
            code = new_code()
            cold()
            with dynamodb_calls(at, error) as fault:
                first = tokens.exchange(code)
            if first["statusCode"] == 200:
                outcomes.record("code exchange", fault.injected, "no effect (fail-open)")
                assert tokens.exchange(code)["statusCode"] == 400  # still single-use
                continue
            assert_unavailable(first, oauth=True)
            retry = tokens.exchange(code)
            if retry["statusCode"] == 200:
                outcomes.record("code exchange", fault.injected, "nothing consumed; retry succeeds")
                assert body_of(tokens.exchange(code))["error"] == "invalid_grant"
            else:
                # The failed attempt consumed the code; its tokens were never sent. The retry is
                # invalid_grant, and (code replay) every token of that grant is revoked.
                assert (retry["statusCode"], body_of(retry)["error"]) == (400, "invalid_grant")
                outcomes.record("code exchange", fault.injected, "code consumed, response lost; client restarts the flow")


# ---------------------------------------------------------------- refresh
def test_refresh(tokens: TokenClient, outcomes: Outcomes) -> None:
    def fresh_refresh_token() -> str:
        return body_of(tokens.exchange(new_code()))["refresh_token"]

    calls = steps(lambda: tokens.refresh(fresh_refresh_token()))
    for at in range(len(calls)):
        for error in ERRORS:
            token = fresh_refresh_token()
            cold()
            with dynamodb_calls(at, error) as fault:
                first = tokens.refresh(token)
            if first["statusCode"] == 200:
                outcomes.record("refresh", fault.injected, "no effect (fail-open)")
                continue
            assert_unavailable(first, oauth=True)
            retry = tokens.refresh(token)
            if retry["statusCode"] == 200:
                outcomes.record("refresh", fault.injected, "nothing rotated; retry succeeds")
                new = body_of(retry)["refresh_token"]
                # Exactly one rotation: the old token is now spent.
                assert body_of(tokens.refresh(token))["error"] == "invalid_grant"
                assert tokens.introspect(new)["statusCode"] == 200
            else:
                assert (retry["statusCode"], body_of(retry)["error"]) == (400, "invalid_grant")
                outcomes.record("refresh", fault.injected, "rotated, response lost; retry is reuse: family revoked, log in again")


# ---------------------------------------------------------------- revocation
@pytest.mark.parametrize("kind", ["refresh_token", "access_token"])
def test_revocation(tokens: TokenClient, kind: str, outcomes: Outcomes) -> None:
    def fresh() -> str:
        return body_of(tokens.exchange(new_code()))[kind]

    calls = steps(lambda: tokens.revoke(fresh()))
    for at in range(len(calls)):
        for error in ERRORS:
            token = fresh()
            cold()
            with dynamodb_calls(at, error) as fault:
                first = tokens.revoke(token)
            if first["statusCode"] == 200:
                outcomes.record(f"revocation ({kind})", fault.injected, "no effect (fail-open)")
            else:
                assert_unavailable(first, oauth=True)
                assert tokens.revoke(token)["statusCode"] == 200
                outcomes.record(f"revocation ({kind})", fault.injected, "retry revokes")
            assert body_of(tokens.introspect(token)) == {"active": False}


# ---------------------------------------------------------------- idempotent charge
def test_idempotent_charge(demo: Demo, outcomes: Outcomes) -> None:
    from authgate.stores.charges import ChargeStore
    from authgate_cli.local.functions import load_handler

    handler = load_handler("charges")

    def post(key: str, marker: str) -> dict[str, Any]:
        event = demo.event("POST", body={"amount": 700, "currency": "usd", "description": marker},
                           headers={"Idempotency-Key": key})
        result = handler(event, None)
        check_proxy_result(result)
        return result

    def charges_with(marker: str) -> int:
        return sum(1 for c in ChargeStore().page("demo", 1000)[0] if c.description == marker)

    calls = steps(lambda: post(str(uuid.uuid4()), "probe"))
    assert len(calls) >= 3
    for at in range(len(calls)):
        for error in ERRORS:
            key, marker = str(uuid.uuid4()), f"fault-{at}-{error}"
            cold()
            with dynamodb_calls(at, error) as fault:
                first = post(key, marker)
            if first["statusCode"] == 201:
                outcomes.record("charge (Idempotency-Key)", fault.injected, "created (the limiter fails open)")
            else:
                assert_unavailable(first, oauth=False)
            # No lock to wait for: the first retry with the same key ends in exactly one charge.
            retry = post(key, marker)
            assert retry["statusCode"] == 201, retry["body"][:300]
            assert json.loads(retry["body"])["description"] == marker
            assert charges_with(marker) == 1
            if first["statusCode"] != 201:
                replayed = retry["multiValueHeaders"].get("Idempotent-Replayed") == ["true"]
                outcomes.record("charge (Idempotency-Key)", fault.injected,
                                "written, answer lost; the retry replays it" if replayed
                                else "nothing written; the retry creates it")
