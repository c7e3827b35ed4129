"""Approval by the payer, poll mode (OpenID Connect CIBA Core 1.0 7, 10, 11, 13): the backchannel authentication
endpoint and the CIBA grant at the token endpoint, through the token function. Whole responses."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.demo import ISSUER, SECRETS
from tests.functional.ciba_support import (
    BOB_ID,
    CIBA,
    CLIENT,
    allow_ciba,
    assert_tokens,
    decide,
    poll,
    start,
    started,
)
from tests.functional.token_support import (
    TokenClient,
    assert_error,
    assert_invalid_client,
    basic,
    body_of,
    claims_of,
    dynamodb_calls,
)


@pytest.fixture
def ciba(clock: ManualClock, tokens: TokenClient) -> TokenClient:
    allow_ciba()
    return tokens


def test_an_approved_request_gets_tokens_at_mfa_once(ciba: TokenClient, clock: ManualClock) -> None:
    """CIBA 10.2: the approval's sign-in (acr mfa, auth_time) in the access and ID tokens; redeemed once."""
    auth_req_id = started(start(ciba, binding_message="Order 1042"))
    clock.advance(5)
    approved_at = int(clock())
    assert decide(auth_req_id, auth_time=approved_at)
    clock.advance(5)
    body = assert_tokens(poll(ciba, auth_req_id))
    access, id_token = claims_of(body["access_token"]), claims_of(body["id_token"])
    assert (access["acr"], access["auth_time"], access["sub"], access["username"], access["client_id"]) == (
        "mfa", approved_at, BOB_ID, "bob", CLIENT)
    assert (id_token["sub"], id_token["aud"], id_token["acr"], id_token["amr"], id_token["auth_time"],
            id_token["iss"]) == (BOB_ID, CLIENT, "mfa", ["pwd", "otp", "mfa"], approved_at, ISSUER)
    clock.advance(5)
    assert_error(poll(ciba, auth_req_id), 400, "invalid_grant",
                 "The auth_req_id is unknown, was issued to another client or was already redeemed.")
    refreshed = ciba.refresh(body["refresh_token"])
    assert claims_of(body_of(refreshed)["access_token"])["acr"] == "mfa"


def test_pending_then_slow_down_and_the_interval_grows(ciba: TokenClient, clock: ManualClock) -> None:
    """CIBA 11 with RFC 8628 3.5: sooner than the interval (less a second) is slow_down and 5 s more for every
    later poll, counted from the refused poll: the device grant's rule (stores.polls)."""
    auth_req_id = started(start(ciba))
    pending = "The user has not yet approved the request; poll again after the interval."
    too_fast = "Polled sooner than the interval; the interval is now 5 seconds longer."
    assert_error(poll(ciba, auth_req_id), 400, "authorization_pending", pending)
    clock.advance(4)  # a second early still counts as the 5 s interval
    assert_error(poll(ciba, auth_req_id), 400, "authorization_pending", pending)
    assert_error(poll(ciba, auth_req_id), 400, "slow_down", too_fast)
    clock.advance(5)  # the interval is 10 s now
    assert_error(poll(ciba, auth_req_id), 400, "slow_down", too_fast)
    clock.advance(10)  # 15 s since the last accepted poll, but only 10 since the refused one
    assert_error(poll(ciba, auth_req_id), 400, "slow_down", too_fast)
    clock.advance(19)  # the interval (20 s now) from the refused poll, less the second of leeway
    assert_error(poll(ciba, auth_req_id), 400, "authorization_pending", pending)


def test_denied_expired_and_another_clients_request(ciba: TokenClient, clock: ManualClock) -> None:
    denied, expiring = started(start(ciba)), started(start(ciba, requested_expiry="60"), expires_in=60)
    assert decide(denied, approved=False)
    assert_error(poll(ciba, denied), 400, "access_denied", "The user denied the request.")
    allow_ciba("demo-partner")
    assert_error(poll(ciba, expiring, client_id="demo-partner"), 400, "invalid_grant",
                 "The auth_req_id is unknown, was issued to another client or was already redeemed.")
    clock.advance(60)
    assert not decide(expiring)
    assert_error(poll(ciba, expiring), 400, "expired_token", "The request expired before it was approved; "
                                                               "start a new one.")
    assert_error(poll(ciba, "x" * 43), 400, "invalid_grant",
                 "The auth_req_id is unknown, was issued to another client or was already redeemed.")
    assert_error(ciba.post([("grant_type", CIBA)], auth=basic(CLIENT, SECRETS[CLIENT])), 400, "invalid_request",
                 "The auth_req_id parameter is required.")


def test_an_email_names_the_user_and_another_user_cannot_approve(ciba: TokenClient, clock: ManualClock) -> None:
    auth_req_id = started(start(ciba, login_hint="BOB@demo.example"))
    assert not decide(auth_req_id, user_id="usr_demoalice0000000000000")
    assert decide(auth_req_id)
    clock.advance(5)
    assert_tokens(poll(ciba, auth_req_id))


@pytest.fixture
def calls(ciba: TokenClient) -> Iterator[Counter[str]]:
    started(start(ciba))  # warm: tenant, client cache and modules as in a warm function
    with dynamodb_calls() as seen:
        yield seen


@pytest.mark.parametrize(("known", "unknown"), [("bob", "nobody"), ("bob@demo.example", "nobody@demo.example")])
def test_an_unknown_user_gets_the_same_answer_and_work(ciba: TokenClient, clock: ManualClock,
                                                       calls: Counter[str], known: str, unknown: str) -> None:
    """The issue and CIBA 13: unknown_user_id is never answered; the request is stored and never approvable."""
    started(start(ciba, login_hint=known))
    for_known = Counter(calls)
    calls.clear()
    auth_req_id = started(start(ciba, login_hint=unknown))
    assert calls == for_known
    assert not decide(auth_req_id)
    clock.advance(300)
    assert_error(poll(ciba, auth_req_id), 400, "expired_token", "The request expired before it was approved; "
                                                                  "start a new one.")


def test_a_pending_poll_costs_one_dynamodb_call(ciba: TokenClient, calls: Counter[str]) -> None:
    """The issue's goal: a poll while pending is one conditional UpdateItem (and the client's BatchGetItem)."""
    warm, auth_req_id = started(start(ciba)), started(start(ciba))
    poll(ciba, warm)  # the signing key, cached as in a warm function
    calls.clear()
    assert poll(ciba, auth_req_id)["statusCode"] == 400
    assert calls == Counter({"BatchGetItem": 1, "UpdateItem": 1})


@pytest.mark.parametrize(("fields", "status", "error", "description", "code"), [
    ({"login_hint": ""}, 400, "invalid_request",
     "Name the user with exactly one of login_hint and id_token_hint (OpenID Connect CIBA Core 7.1).", None),
    ({"id_token_hint": "a.b.c"}, 400, "invalid_request",
     "Name the user with exactly one of login_hint and id_token_hint (OpenID Connect CIBA Core 7.1).", None),
    ({"login_hint": "", "id_token_hint": "a.b.c"}, 400, "invalid_request",
     "The id_token_hint is not an ID token this server issued to this client (OpenID Connect CIBA Core 7.1).",
     None),
    ({"login_hint": "", "login_hint_token": "x"}, 400, "invalid_request",
     "login_hint_token is not supported: name the user with login_hint or id_token_hint.",
     "login_hint_token_not_supported"),
    ({"binding_message": "x" * 101}, 400, "invalid_binding_message",
     "The binding_message must be at most 100 printable characters (OpenID Connect CIBA Core 7.1).", None),
    ({"binding_message": "Order\u200b1042"}, 400, "invalid_binding_message",
     "The binding_message must be at most 100 printable characters (OpenID Connect CIBA Core 7.1).", None),
    ({"requested_expiry": "601"}, 400, "invalid_request",
     "requested_expiry must be a whole number of seconds from 30 to 600 (OpenID Connect CIBA Core 7.1).", None),
    ({"requested_expiry": "-1"}, 400, "invalid_request",
     "requested_expiry must be a whole number of seconds from 30 to 600 (OpenID Connect CIBA Core 7.1).", None),
    ({"scope": "charges:read"}, 400, "invalid_scope",
     "The scope parameter must include openid (OpenID Connect CIBA Core 7.1).", None),
    ({"scope": "openid charges:refund"}, 400, "invalid_scope", "The scope 'charges:refund' is forbidden by the tenant.", None),
])
def test_a_malformed_request_is_refused(ciba: TokenClient, fields: dict[str, str], status: int, error: str,
                                        description: str, code: str | None) -> None:
    assert_error(start(ciba, **fields), status, error, description, code=code)


def test_only_confidential_clients_allowed_the_grant(ciba: TokenClient) -> None:
    allow_ciba("demo-spa")
    refused = "Only a confidential client of a tenant may make backchannel authentication requests (OpenID " \
              "Connect CIBA Core 7.1)."
    assert_error(ciba.post([("scope", "openid"), ("login_hint", "bob"), ("client_id", "demo-spa")],
                           path="/oauth/backchannel"), 400, "unauthorized_client", refused)
    assert_error(start(ciba, client_id="demo-partner"), 400, "unauthorized_client",
                 f"This client may not use the {CIBA} grant.")
    assert_invalid_client(ciba.post([("scope", "openid"), ("login_hint", "bob")], path="/oauth/backchannel",
                                    auth=basic(CLIENT, "wrong")))


@pytest.mark.slow
def test_concurrent_polls_of_an_approved_request_redeem_it_once(ciba: TokenClient, clock: ManualClock) -> None:
    """CIBA 10.2 with the conditional write: of 16 simultaneous polls exactly one gets tokens."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    threads = 16
    with ThreadPoolExecutor(threads) as pool:
        for _ in range(3):
            auth_req_id = started(start(ciba))
            assert decide(auth_req_id)
            barrier = threading.Barrier(threads)

            def run(auth_req_id: str = auth_req_id, barrier: threading.Barrier = barrier) -> dict[str, Any]:
                barrier.wait()
                return poll(ciba, auth_req_id)

            results = [f.result() for f in [pool.submit(run) for _ in range(threads)]]
            assert Counter((r["statusCode"], body_of(r).get("error", "ok")) for r in results) == Counter(
                {(200, "ok"): 1, (400, "invalid_grant"): threads - 1})
