"""Approval by the payer of a payment (OpenID Connect CIBA Core 1.0 7.1 with RFC 9396 authorization_details): the
backchannel request checks the details as PAR does, the mail and the approval page show them in plain words, the
polled token carries and echoes them (RFC 9396 7, 9.1) and the charges API spends them once. Whole responses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from authgate.clock import ManualClock
from tests.demo import BOB_ID, SECRETS, Demo, body, headers
from tests.demo import post_charge as post
from tests.functional.authorization_details_support import (
    GRANTED,
    ORDER,
    SPENT_ONE,
    assert_exceeded,
    details,
)
from tests.functional.authorize_support import page_of
from tests.functional.ciba_support import (
    ApprovalBrowser,
    allow_ciba,
    decide,
    deliver_queued,
    one_time_code,
    poll,
    start,
    started,
)
from tests.functional.token_support import (
    OK_HEADERS,
    TokenClient,
    assert_error,
    basic,
    body_of,
    claims_of,
    headers_of,
)

ORDER_WORDS = "charge up to 12.50 USD, once — 'Order 1042'"


@pytest.fixture
def outbox(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, clock: ManualClock, tokens: TokenClient) -> Path:
    """The local outbox (where mail lands) and demo-web allowed the CIBA grant."""
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_OUTBOX", str(tmp_path / "outbox.jsonl"))
    caches.reset()
    allow_ciba()
    return tmp_path / "outbox.jsonl"


def granted(result: dict[str, Any], scope: str) -> dict[str, Any]:
    """A whole 200 token response carrying the approved details (RFC 9396 7); the access token's claims."""
    sent = headers_of(result)
    assert sent.pop("x-request-id")
    answer = body_of(result)
    assert (result["statusCode"], sent, sorted(answer)) == (200, OK_HEADERS, [
        "access_token", "authorization_details", "expires_in", "id_token", "refresh_token", "scope", "token_type"])
    assert (answer["token_type"], answer["expires_in"], answer["scope"], answer["authorization_details"]) == (
        "Bearer", 900, scope, [GRANTED])
    claims = claims_of(answer["access_token"])
    assert claims["authorization_details"] == [GRANTED]
    return claims | {"access_token": answer["access_token"], "refresh_token": answer["refresh_token"]}


@pytest.mark.slow
def test_bob_approves_a_payment_and_the_agent_charges_once(outbox: Path, tokens: TokenClient, clock: ManualClock,
                                                           demo: Demo, invoke: Any) -> None:
    auth_req_id = started(start(tokens, scope="openid charges:write", binding_message="Order 1042",
                                authorization_details=details(ORDER)))
    assert deliver_queued() == 1  # the mail, sent by the deliver function
    mail = json.loads(outbox.read_text().splitlines()[0])
    link = mail["text"].split("\n\n")[2]
    assert mail["text"] == ("Demo web app asks you to approve:\n- Sign you in with your account\n- Create charges\n"
                            f"- {ORDER_WORDS}\nIt shows this message: Order 1042\n\nTo approve or deny, open\n\n{link}"
                            "\n\nThe link works once, until the request expires. If you expected nothing, deny it.\n")
    approver = ApprovalBrowser(invoke)
    page = page_of(approver.open(link))
    assert (f"Demo web app asks you to approve: Sign you in with your account Create charges {ORDER_WORDS} The "
            "application shows this message: Order 1042") in page.text()
    assert '"type"' not in page.body and "max_charges" not in page.body
    clock.advance(10)
    done = approver.decide(page, password="bob-password", code=one_time_code(int(clock())))
    assert done["statusCode"] == 200
    token = granted(poll(tokens, auth_req_id), "openid charges:write")
    assert (token["sub"], token["username"], token["acr"]) == (BOB_ID, "bob", "mfa")

    first = post(demo, invoke, token["access_token"], {"amount": 1250, "currency": "usd"}, key="order-1042")
    created = body(first)
    assert (first["statusCode"], created["amount"], created["currency"], created["grant_id"]) == (
        201, 1250, "usd", token["grant_id"])
    assert headers(first)["location"].endswith(f"/charges/{created['id']}")
    assert_exceeded(post(demo, invoke, token["access_token"], {"amount": 1250, "currency": "usd"}, key="again"),
                    SPENT_ONE)
    # The refreshed token is of the same grant: the same, spent budget (RFC 9396 6.1).
    refreshed = tokens.refresh(token["refresh_token"])
    assert body_of(refreshed)["authorization_details"] == [GRANTED]
    assert_exceeded(post(demo, invoke, body_of(refreshed)["access_token"], {"amount": 100, "currency": "usd"}),
                    SPENT_ONE)


def test_scope_openid_alone_with_details(outbox: Path, tokens: TokenClient, clock: ManualClock) -> None:
    """The details say what is approved; scope need name no API scope (CIBA 7.1 asks only for openid)."""
    auth_req_id = started(start(tokens, scope="openid", authorization_details=details(ORDER)))
    assert decide(auth_req_id)
    clock.advance(5)
    granted(poll(tokens, auth_req_id), "openid")


def test_a_poll_may_narrow_the_details_never_widen_them(outbox: Path, tokens: TokenClient, clock: ManualClock) -> None:
    """RFC 9396 6.2 at the CIBA grant's token request."""
    wider = started(start(tokens, authorization_details=details(ORDER)))
    widened = ("authorization_details[0] is not within the details of this grant (RFC 9396 6.2: a token request may "
               "only narrow them).")
    assert decide(wider)
    clock.advance(5)
    sent = [("grant_type", "urn:openid:params:grant-type:ciba"), ("auth_req_id", wider),
            ("authorization_details", details({**ORDER, "amount": 1251}))]
    assert_error(tokens.post(sent, auth=basic("demo-web", SECRETS["demo-web"])), 400, "invalid_authorization_details",
                 widened)


@pytest.mark.parametrize(("sent", "description"), [
    (details({**ORDER, "type": "file_access"}),
     ("authorization_details[0].type 'file_access' is not a type the requested resource accepts (the charges "
      "API's is charge).")),
    ("[{", None),
])
def test_invalid_details_are_refused_before_anyone_is_told(outbox: Path, tokens: TokenClient, sent: str,
                                                           description: str | None) -> None:
    result = start(tokens, authorization_details=sent)
    if description is None:
        description = body_of(result)["error_description"]
        assert description.startswith("authorization_details is not strict JSON: ")
    assert_error(result, 400, "invalid_authorization_details", description)
    assert not outbox.exists()
