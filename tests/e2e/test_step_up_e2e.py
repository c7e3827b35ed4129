"""Strong authentication through a real `authgate serve` (issue 28 items 3, 5, 6; docs/strong-authentication.md).

An outside client (Authlib's OAuth2Session) meets the charges API's RFC 9470 challenge with bob's
password-only token, reads it, re-authorizes with the challenge's acr_values and max_age, bob gives only
his TOTP code (his password is fresh in the browser's session), and the new token creates the charge
with the same Idempotency-Key. Beside it, a tenant made to require mfa with `authgate tenants update
--require-mfa` makes a user without a factor enrol one before any code is issued.
"""

from __future__ import annotations

import base64
import html
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pyotp
import pytest
import requests

from tests.e2e.admin_commands import admin
from tests.e2e.conftest import LocalStack, running_stack

pytestmark = [pytest.mark.e2e]

WEB_REDIRECT = "http://127.0.0.1:8765/callback"
BOB = "usr_demobob000000000000000"
BOB_KEY = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
SCOPE = "openid charges:read charges:write"
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')
# RFC 9110 11.2 auth-param: token "=" ( token / quoted-string ), as any client parses a challenge.
_PARAM = re.compile(r'([A-Za-z_]+)="((?:[^"\\]|\\.)*)"|([A-Za-z_]+)=([^\s,"]+)')


def fields_of(page: requests.Response) -> dict[str, str]:
    return {name: html.unescape(value) for name, value in _HIDDEN.findall(page.text)}


def claims_of(jwt: str) -> dict[str, Any]:
    payload = jwt.split(".")[1]
    return dict(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))))


def challenge_params(header: str) -> dict[str, str]:
    """The Bearer challenge's parameters (the first challenge: what the client authenticates with)."""
    bearer = header.split("DPoP ", 1)[0]
    return {m[0] or m[2]: m[1] or m[3] for m in _PARAM.findall(bearer)}


def test_authlib_meets_the_step_up_challenge_and_bob_gives_only_his_code(tmp_path: Path) -> None:
    # A stack of its own: the shared one's bob may have lost his code to test_admin_users_reset_mfa.
    with running_stack(tmp_path) as stack:
        step_up(stack)


def step_up(stack: LocalStack) -> None:
    from authlib.common.security import generate_token
    from authlib.integrations.requests_client import OAuth2Session
    from authlib.oauth2.rfc7636 import create_s256_code_challenge

    base = stack.base_url
    metadata = requests.get(f"{base}/.well-known/openid-configuration", timeout=10).json()
    assert metadata["acr_values_supported"] == ["password", "mfa"]
    browser = requests.Session()

    def authorize(**extra: str) -> tuple[OAuth2Session, str, requests.Response]:
        client = OAuth2Session("demo-web", "demo-web-secret", scope=SCOPE, redirect_uri=WEB_REDIRECT,
                               token_endpoint_auth_method="client_secret_basic")
        verifier = generate_token(48)
        url, _state = client.create_authorization_url(metadata["authorization_endpoint"], nonce=generate_token(20),
                                                      code_challenge=create_s256_code_challenge(verifier),
                                                      code_challenge_method="S256", **extra)
        return client, verifier, browser.get(url, allow_redirects=False)

    def charge(token: str) -> requests.Response:
        return requests.post(f"{base}/charges", json={"amount": 15000, "currency": "usd"}, timeout=30,
                             headers={"Authorization": f"Bearer {token}", "x-api-key": "demo-api-key",
                                      "Idempotency-Key": "step-up-e2e-1"})

    # bob signs in with his password alone: acr password.
    client, verifier, page = authorize()
    signed_in = browser.post(metadata["authorization_endpoint"], allow_redirects=False, data={
        **fields_of(page), "username": "bob", "password": "bob-password", "decision": "approve"})
    assert signed_in.status_code == 303, signed_in.text[:300]
    token = client.fetch_token(metadata["token_endpoint"], authorization_response=signed_in.headers["Location"],
                               code_verifier=verifier)
    assert claims_of(token["access_token"])["acr"] == "password"

    # 150.00 is above the demo tenant's threshold: the RFC 9470 challenge, nothing created.
    refused = charge(token["access_token"])
    assert refused.status_code == 401
    assert refused.headers["Content-Type"] == "application/problem+json"
    assert refused.json()["code"] == "insufficient_user_authentication"
    params = challenge_params(refused.headers["WWW-Authenticate"])
    assert (params["error"], params["acr_values"], params["max_age"]) == ("insufficient_user_authentication",
                                                                          "mfa", "300")

    # The client asks again with what the challenge named; the browser's fresh password session means bob
    # is asked only for his one-time code.
    client, verifier, step = authorize(acr_values=params["acr_values"], max_age=params["max_age"])
    assert step.status_code == 200 and 'name="factor_ticket"' in step.text and 'name="password"' not in step.text
    done = browser.post(metadata["authorization_endpoint"], allow_redirects=False,
                        data={**fields_of(step), "code": pyotp.TOTP(BOB_KEY).now()})
    assert done.status_code == 303, done.text[:300]
    query = parse_qs(urlsplit(done.headers["Location"]).query)
    assert sorted(query) == ["code", "iss", "state"]
    stepped = client.fetch_token(metadata["token_endpoint"], authorization_response=done.headers["Location"],
                                 code_verifier=verifier)
    access = claims_of(stepped["access_token"])
    identity = claims_of(stepped["id_token"])
    assert (access["acr"], identity["acr"], sorted(identity["amr"]), identity["sub"]) == (
        "mfa", "mfa", ["mfa", "otp", "pwd"], BOB)
    created = charge(stepped["access_token"])
    assert created.status_code == 201, created.text[:300]
    assert (created.json()["amount"], created.json()["currency"]) == (15000, "usd")


def test_authlib_asks_mfa_up_front_and_bob_signs_in_with_password_and_code_in_one_post(tmp_path: Path) -> None:
    from authlib.common.security import generate_token
    from authlib.integrations.requests_client import OAuth2Session
    from authlib.oauth2.rfc7636 import create_s256_code_challenge

    with running_stack(tmp_path) as stack:
        metadata = requests.get(f"{stack.base_url}/.well-known/openid-configuration", timeout=10).json()

        def sign_in(code: str) -> tuple[OAuth2Session, str, requests.Response]:
            browser = requests.Session()  # a fresh browser: no session to step up from
            client = OAuth2Session("demo-web", "demo-web-secret", scope=SCOPE, redirect_uri=WEB_REDIRECT,
                                   token_endpoint_auth_method="client_secret_basic")
            verifier = generate_token(48)
            url, _state = client.create_authorization_url(
                metadata["authorization_endpoint"], nonce=generate_token(20), acr_values="mfa",
                code_challenge=create_s256_code_challenge(verifier), code_challenge_method="S256")
            form = browser.get(url, allow_redirects=False, timeout=10)
            assert form.status_code == 200 and 'autocomplete="one-time-code"' in form.text
            return client, verifier, browser.post(metadata["authorization_endpoint"], allow_redirects=False,
                                                  timeout=10, data={**fields_of(form), "username": "bob",
                                                                    "password": "bob-password", "code": code,
                                                                    "decision": "approve"})

        code = pyotp.TOTP(BOB_KEY).now()
        client, verifier, done = sign_in(code)
        # No step page: the code rode with the password, and the answer is the redirect with the code.
        assert done.status_code == 303, done.text[:300]
        assert sorted(parse_qs(urlsplit(done.headers["Location"]).query)) == ["code", "iss", "state"]
        token = client.fetch_token(metadata["token_endpoint"], authorization_response=done.headers["Location"],
                                   code_verifier=verifier)
        identity = claims_of(token["id_token"])
        assert (claims_of(token["access_token"])["acr"], identity["acr"], sorted(identity["amr"])) == (
            "mfa", "mfa", ["mfa", "otp", "pwd"])
        created = requests.post(f"{stack.base_url}/charges", json={"amount": 15000, "currency": "usd"}, timeout=30,
                                headers={"Authorization": f"Bearer {token['access_token']}",
                                         "x-api-key": "demo-api-key", "Idempotency-Key": "one-post-e2e-1"})
        assert created.status_code == 201, created.text[:300]

        # The same code again, in another browser within its window: the sign-in form's one message.
        _client, _verifier, replayed = sign_in(code)
        assert replayed.status_code == 200 and "Location" not in replayed.headers
        assert "The username, password or code is incorrect" in replayed.text
        assert "authgate_session" not in replayed.headers.get("Set-Cookie", "")


def test_a_tenant_that_requires_mfa_makes_a_new_user_enrol_at_sign_in(tmp_path: Path) -> None:
    with running_stack(tmp_path) as stack:
        assert admin(stack, "tenants", "update", "demo", "--require-mfa").returncode == 0
        made = admin(stack, "users", "create", "--tenant", "demo", "--username", "e2e-hana", "--password-stdin",
                     stdin="hana-password-1\n")
        assert made.returncode == 0, made.stderr
        browser = requests.Session()
        params = {"response_type": "code", "client_id": "demo-web", "redirect_uri": WEB_REDIRECT,
                  "scope": "charges:read", "state": "s1"}
        page = browser.get(f"{stack.base_url}/oauth/authorize", params=params, timeout=10)
        enrol = browser.post(f"{stack.base_url}/oauth/authorize", allow_redirects=False, timeout=10, data={
            **fields_of(page), "username": "e2e-hana", "password": "hana-password-1", "decision": "approve"})
        assert enrol.status_code == 200 and "Your organisation requires a second factor." in enrol.text
        secret = re.search(r'<code class="totp-secret">([A-Z2-7 ]+)</code>', enrol.text)
        assert secret is not None and "<svg" in enrol.text
        codes = browser.post(f"{stack.base_url}/oauth/authorize", allow_redirects=False, timeout=10, data={
            **fields_of(enrol), "code": pyotp.TOTP(secret.group(1).replace(" ", "")).now()})
        assert codes.status_code == 200
        assert len(re.findall(r"<li><code>[a-z2-7]{4}(?:-[a-z2-7]{4}){3}</code></li>", codes.text)) == 10
        done = browser.post(f"{stack.base_url}/oauth/authorize", data=fields_of(codes), allow_redirects=False,
                            timeout=10)
        assert done.status_code == 303
        assert sorted(parse_qs(urlsplit(done.headers["Location"]).query)) == ["code", "iss", "state"]


def test_the_demo_apps_charge_button_steps_up_with_bobs_code(tmp_path: Path) -> None:
    """The demo app's "Charge 150.00" meets the challenge and steps up (issue 28 item 5)."""
    with running_stack(tmp_path, "--callback-port", "0") as stack:
        assert stack.demo_app is not None
        browser = requests.Session()
        page = browser.get(f"{stack.demo_app}/login?client=demo-web", timeout=30)  # follows to the sign-in page
        assert page.status_code == 200 and 'name="password"' in page.text
        signed_in = browser.post(f"{stack.base_url}/oauth/authorize", timeout=30, data={
            **fields_of(page), "username": "bob", "password": "bob-password", "decision": "approve"})
        assert signed_in.status_code == 200 and "Charge 150.00" in signed_in.text
        handle = re.search(r'href="/charge\?t=([A-Za-z0-9_-]+)"', signed_in.text)
        assert handle is not None
        refused = browser.get(f"{stack.demo_app}/charge?t={handle.group(1)}", timeout=30)
        assert "POST /charges for 150.00: HTTP 401" in refused.text
        assert "insufficient_user_authentication" in refused.text
        step_up = re.search(r'href="(/login\?client=demo-web&amp;step_up=[A-Za-z0-9_-]+)"', refused.text)
        assert step_up is not None
        step = browser.get(stack.demo_app + html.unescape(step_up.group(1)), timeout=30)
        assert step.status_code == 200 and 'name="factor_ticket"' in step.text and 'name="password"' not in step.text
        done = browser.post(f"{stack.base_url}/oauth/authorize", timeout=30,
                            data={**fields_of(step), "code": pyotp.TOTP(BOB_KEY).now()})
        assert done.status_code == 200
        assert "Stepped up: the charge of 150.00 retried with the new token" in done.text
        assert re.findall(r"<h2>([^<]*)</h2>", done.text) == [
            "1. The code came back", "2. Code exchanged: HTTP 200", "3. GET /charges: HTTP 200",
            "4. The charge retried for 150.00: HTTP 201"]
