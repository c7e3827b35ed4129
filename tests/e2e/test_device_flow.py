"""The device authorization grant (RFC 8628) through a real `authgate serve`: panva's openid-client (on
oauth4webapi) runs the device side on Node while headless Chromium approves on the verification page;
plain HTTP clients (requests) approve and deny, and attack it: a device code polled too fast, a guessed
user code, a denied code, a redeemed code replayed, a client without the grant. Each attack asserts the
whole response (status, headers, body). An expired code is proven in-process with a stopped clock
(tests/functional/test_device_authorization.py): 10 minutes are too long to wait here.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.e2e.admin_commands import admin
from tests.e2e.conftest import LocalStack, running_stack

pytestmark = [pytest.mark.e2e]

JS = Path(__file__).with_name("js")
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
ALICE = "usr_demoalice0000000000000"
UNKNOWN = "The device_code is unknown, was issued to another client, or has been used already."
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')
NO_STORE = {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"}


def device_client(stack: LocalStack, client_id: str) -> str:
    """`authgate clients create` of a public client with the device grant, as an operator registers one."""
    done = admin(stack, "clients", "create", "--client-id", client_id, "--tenant", "demo", "--type", "public",
                 "--grant", "device_code", "--grant", "refresh_token", "--scope", "openid", "--scope", "charges:read",
                 "--name", "Kitchen display")
    assert done.returncode == 0, done.stderr
    return client_id


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    """A stack with the device client registered."""
    with running_stack(tmp_path_factory.mktemp("authgate-device")) as running:
        device_client(running, "e2e-device")
        yield running


@pytest.fixture
def own_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    """A stack of the test's own: guessing spends the page's quota for 127.0.0.1, which every test here shares."""
    with running_stack(tmp_path_factory.mktemp("authgate-guesses")) as running:
        device_client(running, "e2e-device")
        yield running


def start(stack: LocalStack, client_id: str = "e2e-device", scope: str = "charges:read") -> dict[str, Any]:
    answer = requests.post(f"{stack.base_url}/oauth/device_authorization",
                           data={"client_id": client_id, "scope": scope}, timeout=10)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def poll(stack: LocalStack, device_code: str, client_id: str = "e2e-device") -> requests.Response:
    return requests.post(f"{stack.base_url}/oauth/token", timeout=10,
                         data={"grant_type": DEVICE_GRANT, "device_code": device_code, "client_id": client_id})


def assert_oauth_error(answer: requests.Response, status: int, error: str, description: str, base: str,
                       code: str | None = None) -> None:
    headers = {k: answer.headers.get(k) for k in NO_STORE}
    assert (answer.status_code, headers, answer.json()) == (
        status, NO_STORE, {"error": error, "error_description": description, "error_uri": f"{base}/problems/{code or error}"})


def hidden(html: str) -> dict[str, str]:
    return {name: value.replace("&amp;", "&") for name, value in _HIDDEN.findall(html)}


def enter_code(session: requests.Session, base: str, user_code: str) -> requests.Response:
    """The verification page as a person's HTTP client uses it: open it, type the code."""
    form = session.get(f"{base}/oauth/device", timeout=10)
    assert form.status_code == 200
    return session.post(f"{base}/oauth/device", data={**hidden(form.text), "user_code": user_code}, timeout=10)


def test_openid_client_gets_tokens_once_chromium_approves(stack: LocalStack, context: Any) -> None:
    if not (JS / "node_modules" / "openid-client").is_dir():
        pytest.fail("openid-client is not installed: run `npm ci --prefix tests/e2e/js` (make test does)")
    env = {"ISSUER": stack.base_url, "CLIENT_ID": "e2e-device", "PATH": "/usr/bin:/bin:/usr/local/bin"}
    device = subprocess.Popen(["node", str(JS / "device_flow.mjs")], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert device.stdout is not None
        started = json.loads(device.stdout.readline())
        assert set(started) == {"device_code", "user_code", "verification_uri", "verification_uri_complete",
                                "expires_in", "interval"}, started
        assert started["verification_uri"] == f"{stack.base_url}/oauth/device"

        page = context.new_page()
        page.goto(started["verification_uri_complete"])
        assert page.input_value("#user_code") == started["user_code"]  # filled in, still to be confirmed (5.4)
        page.click("button[type=submit]")
        warning = page.locator("p.warning").inner_text()
        assert "Approve only if you started this on a device that is in front of you" in warning
        assert started["user_code"] in warning
        assert "Kitchen display" in page.locator("strong.client").inner_text()
        page.fill("#username", "alice")
        page.fill("#password", "alice-password")
        page.click("button[name=decision][value=approve]")
        assert "You approved the request" in page.locator("main").inner_text()

        out, err = device.communicate(timeout=60)
    finally:
        if device.poll() is None:
            device.kill()
    result = json.loads(out)
    assert "error" not in result, (result, err, stack.log(40))
    assert result["discovery"] == {"device_authorization_endpoint": f"{stack.base_url}/oauth/device_authorization",
                                   "device_grant": True}
    tokens = result["tokens"]
    assert {k: v for k, v in tokens.items() if k != "waited_seconds"} == {
        "token_type": "bearer", "scope": "openid charges:read", "sub": ALICE, "acr": "password", "has_sid": True,
        "has_refresh": True}
    assert_replayed(stack, started["device_code"])


def assert_replayed(stack: LocalStack, device_code: str) -> None:
    """A redeemed device code, polled again: invalid_grant, nothing issued."""
    assert_oauth_error(poll(stack, device_code), 400, "invalid_grant", UNKNOWN, stack.base_url)


def test_an_http_client_approves_and_the_code_works_once(stack: LocalStack) -> None:
    started = start(stack)
    person = requests.Session()
    page = enter_code(person, stack.base_url, started["user_code"].lower())
    assert "Kitchen display" in page.text and "Approve only if you started this" in page.text
    done = person.post(f"{stack.base_url}/oauth/device", timeout=10, data={
        **hidden(page.text), "decision": "approve", "username": "alice", "password": "alice-password"})
    assert done.status_code == 200 and "You approved the request" in done.text
    assert "authgate_session" in person.cookies
    issued = poll(stack, started["device_code"])
    assert (issued.status_code, issued.headers["Cache-Control"]) == (200, "no-store"), issued.text
    assert set(issued.json()) == {"access_token", "token_type", "expires_in", "scope", "refresh_token"}
    assert_replayed(stack, started["device_code"])


def test_polling_too_fast_is_slow_down_then_the_longer_interval_is_honoured(stack: LocalStack) -> None:
    started = start(stack)
    assert started["interval"] == 5
    assert_oauth_error(poll(stack, started["device_code"]), 400, "authorization_pending",
                       "The user has not yet approved or denied this request; poll again after the interval "
                       "(RFC 8628 3.5).", stack.base_url)
    assert_oauth_error(poll(stack, started["device_code"]), 400, "slow_down",
                       "Polling too fast: wait at least 10 seconds between requests from now on (RFC 8628 3.5).",
                       stack.base_url)
    time.sleep(10.2)
    assert poll(stack, started["device_code"]).json()["error"] == "authorization_pending"


def test_a_denied_code_is_access_denied(stack: LocalStack) -> None:
    started = start(stack)
    person = requests.Session()
    page = enter_code(person, stack.base_url, started["user_code"])
    denied = person.post(f"{stack.base_url}/oauth/device", data={**hidden(page.text), "decision": "deny"}, timeout=10)
    assert denied.status_code == 200 and "You denied the request" in denied.text
    assert_oauth_error(poll(stack, started["device_code"]), 400, "access_denied",
                       "The user denied the request (RFC 8628 3.5).", stack.base_url, code="device_access_denied")


def test_a_client_without_the_grant_is_refused(stack: LocalStack) -> None:
    answer = requests.post(f"{stack.base_url}/oauth/device_authorization",
                           data={"client_id": "demo-spa", "scope": "charges:read"}, timeout=10)
    assert_oauth_error(answer, 400, "unauthorized_client",
                       "This client may not use the device authorization grant (RFC 8628 3.1).", stack.base_url)
    assert_oauth_error(poll(stack, "BCDFGHJKLM.forged", client_id="demo-spa"), 400, "unauthorized_client",
                       f"This client may not use the {DEVICE_GRANT} grant.", stack.base_url)


def test_guessed_user_codes_are_refused_alike_then_rate_limited(own_stack: LocalStack) -> None:
    stack = own_stack
    started = start(stack)
    person = requests.Session()
    answers = [enter_code(person, stack.base_url, guess).text for guess in ("BCDFG-HJKLM", "ZZZZZ-ZZZZZ", "nonsense")]
    shown = {re.sub(r'value="[^"]*"', "", text) for text in answers}
    assert len(shown) == 1 and "That code is not valid." in answers[0]  # no oracle: one page for every miss
    status = 200
    for _ in range(40):
        answer = enter_code(person, stack.base_url, "BCDFG-HJKLM")
        status = answer.status_code
        if status != 200:
            break
    assert status == 429
    assert answer.headers["Content-Type"] == "text/html; charset=utf-8"
    assert int(answer.headers["Retry-After"]) > 0
    assert "Too many codes were tried; retry after" in answer.text
    # The right code, from the same address, is refused too while the quota is spent.
    assert enter_code(person, stack.base_url, started["user_code"]).status_code == 429
