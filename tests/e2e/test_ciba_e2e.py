"""Approval by the payer (OpenID Connect CIBA Core 1.0, poll mode) end to end through a real `authgate serve`:
the operator's commands, a real HTTP webhook receiver on loopback (the local stack's loopback flag), the
signature checked with PyJWT against the published JWKS, the approval page driven by a real HTTP client
with bob's password and a TOTP code (pyotp), Authlib's OAuth2Session polling with the CIBA grant, and
panva's oauth4webapi (its CIBA functions on Node, tests/e2e/js/ciba_flow.mjs) starting and polling a request.
Whole responses: status, headers, body."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.demo import BOB_ID
from tests.e2e.admin_commands import admin
from tests.e2e.conftest import LocalStack, running_stack

pytestmark = [pytest.mark.e2e]

JS = Path(__file__).with_name("js")
CIBA = "urn:openid:params:grant-type:ciba"
AUTH = ("demo-web", "demo-web-secret")
BOB_TOTP = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"  # the demo seed's bob (RFC 6238's published test key)
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')


_LAST_STEP = [0]


def one_time_code() -> str:
    """A TOTP code of bob's never given before: each step is accepted once (RFC 6238 5.2), and authgate
    accepts the next step too, so a second approval in the same 30 s uses it."""
    import pyotp

    step = max(int(time.time()) // 30, _LAST_STEP[0] + 1)
    while step > int(time.time()) // 30 + 1:
        time.sleep(1)
    _LAST_STEP[0] = step
    return str(pyotp.TOTP(BOB_TOTP).at(step * 30))


class Receiver:
    """A tenant's webhook receiver on 127.0.0.1: every POST's headers and body."""

    def __init__(self) -> None:
        received: list[tuple[dict[str, str], bytes]] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                received.append((dict(self.headers.items()), body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.received = received
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def delivered(receiver: Receiver, settle: float = 0.5) -> list[tuple[dict[str, str], bytes]]:
    """The webhook POSTs once `authgate serve`'s deliveries poller has sent one (the endpoint queues, the poller
    sends), and whatever else came within `settle` seconds more."""
    deadline = time.monotonic() + 20
    while not receiver.received and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(settle)
    return list(receiver.received)


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    got = Receiver()
    yield got
    got.server.shutdown()


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, receiver: Receiver) -> Iterator[LocalStack]:
    with running_stack(tmp_path_factory.mktemp("authgate-ciba"), "--allow-loopback-outbound") as running:
        done = admin(running, "clients", "update", "demo-web", "--grant", "authorization_code", "--grant",
                     "refresh_token", "--grant", "ciba")
        assert done.returncode == 0, done.stderr
        done = admin(running, "tenants", "update", "demo", "--approval-webhook", receiver.url)
        assert done.returncode == 0, done.stderr
        yield running


def backchannel(stack: LocalStack, **fields: str) -> requests.Response:
    return requests.post(f"{stack.base_url}/oauth/backchannel", data={"scope": "openid charges:read", **fields},
                         auth=AUTH, timeout=10)


def started(answer: requests.Response) -> str:
    body = answer.json()
    assert (answer.status_code, answer.headers["Content-Type"], answer.headers["Cache-Control"], sorted(body),
            body["expires_in"], body["interval"]) == (200, "application/json", "no-store",
                                                     ["auth_req_id", "expires_in", "interval"], 300, 5)
    return str(body["auth_req_id"])


def poll(stack: LocalStack, auth_req_id: str) -> requests.Response:
    return requests.post(f"{stack.base_url}/oauth/token", data={"grant_type": CIBA, "auth_req_id": auth_req_id},
                         auth=AUTH, timeout=10)


def assert_oauth_error(answer: requests.Response, status: int, error: str, description: str) -> None:
    assert (answer.status_code, answer.headers["Content-Type"], answer.headers["Cache-Control"],
            answer.headers["Pragma"], answer.json()) == (
        status, "application/json", "no-store", "no-cache",
        {"error": error, "error_description": description, "error_uri": answer.json()["error_uri"]})


def verified(stack: LocalStack, headers: dict[str, str], body: bytes) -> dict[str, Any]:
    """What the receiver does (docs/ciba.md): the detached, unencoded JWS against the published JWKS."""
    import jwt

    jwks = jwt.PyJWKSet.from_dict(requests.get(f"{stack.base_url}/.well-known/jwks.json", timeout=10).json())
    signature = headers["Authgate-Signature"]
    key = jwks[jwt.get_unverified_header(signature)["kid"]]
    jwt.api_jws.PyJWS().decode(signature, key.key, algorithms=["RS256", "ES256"], detached_payload=body)
    payload: dict[str, Any] = json.loads(body)
    return payload


def test_bob_approves_on_the_page_and_authlib_polls_the_tokens(stack: LocalStack, receiver: Receiver) -> None:
    from authlib.integrations.requests_client import OAuth2Session

    receiver.received.clear()
    auth_req_id = started(backchannel(stack, login_hint="bob", binding_message="Order 1042"))
    [(headers, body)] = delivered(receiver)
    assert headers["Content-Type"] == "application/json" and auth_req_id.encode() not in body
    payload = verified(stack, headers, body)
    assert (payload["username"], payload["client_name"], payload["binding_message"], payload["asked"]) == (
        "bob", "Demo web app", "Order 1042", ["Sign you in with your account", "See your charges"])

    browser = requests.Session()
    page = browser.get(payload["approval_url"], timeout=10)
    assert (page.status_code, page.headers["Cache-Control"], page.headers["X-Frame-Options"]) == (200, "no-store",
                                                                                                  "DENY")
    assert "Order 1042" in page.text and "Demo web app" in page.text
    form = dict(_HIDDEN.findall(page.text))
    done = browser.post(f"{stack.base_url}/oauth/approve", data={
        **form, "password": "bob-password", "code": one_time_code(), "decision": "approve"}, timeout=10)
    assert (done.status_code, "Approved." in done.text) == (200, True)

    client = OAuth2Session(*AUTH, token_endpoint_auth_method="client_secret_basic")
    token = client.fetch_token(f"{stack.base_url}/oauth/token", grant_type=CIBA, auth_req_id=auth_req_id)
    assert (token["token_type"], token["scope"], sorted(token)) == (
        "Bearer", "openid charges:read",
        ["access_token", "expires_at", "expires_in", "id_token", "refresh_token", "scope", "token_type"])
    claims = json.loads(base64.urlsafe_b64decode(token["access_token"].split(".")[1] + "=="))
    assert (claims["acr"], claims["sub"], claims["username"]) == ("mfa", BOB_ID, "bob")

    again = browser.get(payload["approval_url"], timeout=10)
    assert (again.status_code, "approval_link_invalid" in again.text) == (400, True)
    assert_oauth_error(poll(stack, auth_req_id), 400, "invalid_grant",
                       "The auth_req_id is unknown, was issued to another client or was already redeemed.")


def test_polling_faster_than_the_interval_is_slow_down(stack: LocalStack) -> None:
    auth_req_id = started(backchannel(stack, login_hint="alice"))
    assert_oauth_error(poll(stack, auth_req_id), 400, "authorization_pending",
                       "The user has not yet approved the request; poll again after the interval.")
    assert_oauth_error(poll(stack, auth_req_id), 400, "slow_down",
                       "Polled sooner than the interval; the interval is now 5 seconds longer.")


def test_an_unknown_user_gets_the_same_answer_and_no_webhook(stack: LocalStack, receiver: Receiver) -> None:
    receiver.received.clear()
    known, unknown = backchannel(stack, login_hint="bob"), backchannel(stack, login_hint="nobody")
    started(known), started(unknown)
    assert sorted(known.headers) == sorted(unknown.headers)
    assert len(delivered(receiver, settle=3)) == 1  # nobody's message is queued too, and dropped


def test_a_webhook_on_a_private_address_is_refused(stack: LocalStack) -> None:
    done = admin(stack, "tenants", "update", "demo", "--approval-webhook", "https://10.1.2.3/hook")
    assert (done.returncode, done.stdout, done.stderr.splitlines()) == (2, "", [
        f"target: local stack {stack.base_url} (stage local)",
        "authgate tenants: --approval-webhook 'https://10.1.2.3/hook' is refused: 10.1.2.3 -> 10.1.2.3 (private)"])



def oauth4webapi(stack: LocalStack, **env: str) -> dict[str, Any]:
    """tests/e2e/js/ciba_flow.mjs (panva's oauth4webapi on Node) against the stack; its one JSON line."""
    if not (JS / "node_modules" / "oauth4webapi").is_dir():
        pytest.fail("oauth4webapi is not installed: run `npm ci --prefix tests/e2e/js` (make test does)")
    run = subprocess.run(["node", str(JS / "ciba_flow.mjs")], capture_output=True, text=True, timeout=60,
                         env={"ISSUER": stack.base_url, "PATH": "/usr/bin:/bin:/usr/local/bin", **env}, check=False)
    assert run.returncode == 0, run.stderr
    result: dict[str, Any] = json.loads(run.stdout)
    return result


def test_oauth4webapi_starts_and_polls_a_request_bob_approves(stack: LocalStack, receiver: Receiver) -> None:
    receiver.received.clear()
    started_ = oauth4webapi(stack, MODE="start")
    assert (started_["endpoint"], started_["modes"], started_["expires_in"], started_["interval"]) == (
        f"{stack.base_url}/oauth/backchannel", ["poll"], 300, 5), started_
    pending = oauth4webapi(stack, MODE="poll", AUTH_REQ_ID=started_["auth_req_id"])
    assert (pending["error"], pending["cause"]) == ("OAUTH_RESPONSE_BODY_ERROR", "authorization_pending"), pending
    [(headers, body)] = delivered(receiver)
    payload = verified(stack, headers, body)
    browser = requests.Session()
    form = dict(_HIDDEN.findall(browser.get(payload["approval_url"], timeout=10).text))
    done = browser.post(f"{stack.base_url}/oauth/approve", data={
        **form, "password": "bob-password", "code": one_time_code(), "decision": "approve"}, timeout=10)
    assert done.status_code == 200 and "Approved." in done.text
    time.sleep(5)  # the interval
    assert oauth4webapi(stack, MODE="poll", AUTH_REQ_ID=started_["auth_req_id"]) == {
        "token_type": "bearer", "scope": "openid charges:read", "has_refresh": True,
        "sub": "usr_demobob000000000000000", "acr": "mfa", "amr": ["pwd", "otp", "mfa"]}


def test_oauth4webapi_asks_for_a_payment_and_the_charges_api_spends_it_once(stack: LocalStack,
                                                                            receiver: Receiver) -> None:
    """Issue 31 item 6: CIBA poll mode with RFC 9396 authorization_details through a client nobody here wrote."""
    receiver.received.clear()
    order = {"type": "charge", "actions": ["create"], "amount": 1250, "currency": "usd", "description": "Order 1042",
             "max_charges": 1}
    started_ = oauth4webapi(stack, MODE="start", SCOPE="openid charges:write", DETAILS=json.dumps([order]))
    assert (started_["expires_in"], started_["interval"]) == (300, 5), started_
    [(headers, body)] = delivered(receiver)
    payload = verified(stack, headers, body)
    assert payload["asked"] == ["Sign you in with your account", "Create charges",
                                "charge up to 12.50 USD, once — 'Order 1042'"]
    browser = requests.Session()
    form = dict(_HIDDEN.findall(browser.get(payload["approval_url"], timeout=10).text))
    done = browser.post(f"{stack.base_url}/oauth/approve", data={
        **form, "password": "bob-password", "code": one_time_code(), "decision": "approve"}, timeout=10)
    assert done.status_code == 200 and "Approved." in done.text
    time.sleep(5)  # the interval
    polled = oauth4webapi(stack, MODE="poll", AUTH_REQ_ID=started_["auth_req_id"])
    access_token = polled.pop("access_token")
    assert polled == {
        "token_type": "bearer", "scope": "openid charges:write", "has_refresh": True,
        "sub": "usr_demobob000000000000000", "acr": "mfa", "amr": ["pwd", "otp", "mfa"],
        "authorization_details": [{**order}]}

    def charge(key: str) -> requests.Response:
        return requests.post(f"{stack.base_url}/charges", json={"amount": 1250, "currency": "usd"}, timeout=30,
                             headers={"x-api-key": "demo-api-key", "Authorization": f"Bearer {access_token}",
                                      "Idempotency-Key": key})

    first, second = charge(f"ciba-{auth_key()}"), charge(f"ciba-{auth_key()}")
    assert (first.status_code, first.json()["amount"], first.json()["currency"]) == (201, 1250, "usd")
    assert_spent(stack, second)


def assert_spent(stack: LocalStack, response: requests.Response) -> None:
    """The whole 403 of a charge beyond the grant's max_charges 1 (docs/payments-consent.md)."""
    headers = response.headers
    assert (response.status_code, headers["Content-Type"], headers["Vary"], response.json()) == (
        403, "application/problem+json", "Accept", {
            "type": f"{stack.base_url}/problems/authorization_details_exceeded",
            "title": "Beyond the authorized details", "status": 403,
            "detail": "This grant has already made the 1 charge its approved payment allows (max_charges); ask the "
                      "user to approve a new payment.",
            "instance": "/charges", "code": "authorization_details_exceeded",
            "traceId": headers["x-request-id"]})


def auth_key() -> str:
    import secrets

    return secrets.token_urlsafe(12)


def test_authlib_polls_a_payment_and_the_refreshed_token_cannot_spend_it_again(stack: LocalStack,
                                                                               receiver: Receiver) -> None:
    """Issue 31 item 6 with Authlib: its OAuth2Session polls the CIBA grant and refreshes (RFC 9396 6.1: the
    refreshed token keeps the details and the grant's one budget)."""
    from authlib.integrations.requests_client import OAuth2Session

    receiver.received.clear()
    order = {"type": "charge", "actions": ["create"], "amount": 500, "currency": "usd", "max_charges": 1}
    auth_req_id = started(backchannel(stack, login_hint="bob", scope="openid charges:write",
                                      authorization_details=json.dumps([order])))
    [(headers, body)] = delivered(receiver)
    payload = verified(stack, headers, body)
    assert payload["asked"][-1] == "charge up to 5.00 USD, once"
    browser = requests.Session()
    form = dict(_HIDDEN.findall(browser.get(payload["approval_url"], timeout=10).text))
    done = browser.post(f"{stack.base_url}/oauth/approve", data={
        **form, "password": "bob-password", "code": one_time_code(), "decision": "approve"}, timeout=10)
    assert done.status_code == 200 and "Approved." in done.text

    client = OAuth2Session(*AUTH, token_endpoint_auth_method="client_secret_basic")
    token = client.fetch_token(f"{stack.base_url}/oauth/token", grant_type=CIBA, auth_req_id=auth_req_id)
    assert (token["scope"], token["authorization_details"]) == ("openid charges:write", [order])
    refreshed = client.refresh_token(f"{stack.base_url}/oauth/token", refresh_token=token["refresh_token"])
    assert refreshed["authorization_details"] == [order]

    def charge(access_token: str) -> requests.Response:
        return requests.post(f"{stack.base_url}/charges", json={"amount": 500, "currency": "usd"}, timeout=30,
                             headers={"x-api-key": "demo-api-key", "Authorization": f"Bearer {access_token}",
                                      "Idempotency-Key": f"ciba-{auth_key()}"})

    first, again = charge(token["access_token"]), charge(refreshed["access_token"])
    assert (first.status_code, first.json()["amount"]) == (201, 500)
    assert_spent(stack, again)
