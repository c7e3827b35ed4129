"""Log hygiene through `authgate serve` (contract 5.7, RFC 6750 5.3, RFC 9700 4.14): every flow
runs over real HTTP with the server's whole output captured, then no secret that the flows sent
or received may appear anywhere in it — Authorization values, client secrets, passwords,
codes, code verifiers, access and refresh tokens, the login form's request blob and CSRF token,
the binding cookie and the API key."""

from __future__ import annotations

import json
import time
import uuid

import pytest
import requests

from tests.e2e.conftest import LocalStack
from tests.e2e.flows import SPA, WEB, Flows
from tests.log_hygiene import SecretHarvest, leaks

pytestmark = pytest.mark.e2e


def harvest_exchange(harvest: SecretHarvest, response: requests.Response) -> None:
    request = response.request
    harvest.headers(request.headers.items())
    harvest.query(request.url.partition("?")[2] if request.url else "")
    harvest.body(request.body, request.headers.get("Content-Type"))
    harvest.headers(response.headers.items())
    harvest.body(response.content, response.headers.get("Content-Type"))
    # requests folds repeated Set-Cookie; the jar has each value.
    for cookie in response.cookies:
        harvest.add(cookie.value)


def test_no_secret_of_any_flow_reaches_the_server_log(local_stack: LocalStack) -> None:
    harvest = SecretHarvest()
    flows = Flows(local_stack.base_url, on_response=lambda r: harvest_exchange(harvest, r))
    before = local_stack.log_path.stat().st_size
    try:
        # client_credentials (Basic), and client_secret_post.
        service_token = flows.client_credentials().json()["access_token"]
        assert flows.client_secret_post().status_code == 200
        # authorization code + PKCE through the login form (confidential and public client).
        code, verifier = flows.authorize(WEB)
        tokens = flows.exchange(code, verifier).json()
        spa_code, spa_verifier = flows.authorize(SPA)
        assert flows.exchange(spa_code, spa_verifier, SPA).status_code == 200
        # refresh rotation, then reuse of the rotated token (invalid_grant, family revoked).
        rotated = flows.refresh(tokens["refresh_token"]).json()
        assert flows.refresh(tokens["refresh_token"]).status_code == 400
        # introspection and revocation.
        assert flows.introspect(rotated["access_token"]).status_code == 200
        assert flows.revoke(rotated["refresh_token"], hint="refresh_token").status_code == 200
        # code replay: invalid_grant, and every token issued from the code is revoked.
        assert flows.exchange(code, verifier).status_code == 400
        # charges: create, replay, get, list (paced under the demo key's usage plan).
        key = f"hyg-{uuid.uuid4()}"
        created = flows.create_charge(service_token, key)
        assert created.status_code == 201, created.text
        time.sleep(0.2)
        assert flows.create_charge(service_token, key).status_code == 201
        time.sleep(0.2)
        assert flows.get_charge(service_token, created.json()["id"]).status_code == 200
        time.sleep(0.2)
        assert flows.list_charges(service_token).status_code == 200
        # error cases: wrong secret, wrong password, bad and malformed bearer, revoked token.
        assert flows.client_credentials(secret="not-the-secret-at-all").status_code == 401
        page = flows.login_page(WEB, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        assert flows.submit_login(page, password="wrong-password-123").status_code in (200, 400, 401)
        time.sleep(0.2)
        assert flows.list_charges("garbage.token.value-xyz").status_code == 401
        time.sleep(0.2)
        revoked = flows.client_credentials().json()["access_token"]
        assert flows.revoke(revoked, ("demo-service", "demo-service-secret", "")).status_code == 200
        assert flows.list_charges(revoked).status_code == 401
        time.sleep(0.2)
        malformed = flows.request("GET", "/charges", headers={"x-api-key": flows.api_key,
                                                              "Authorization": "Bearer two words-secret-ish"})
        assert malformed.status_code == 400
    finally:
        flows.close()
    time.sleep(0.3)  # let the server flush its last lines
    with open(local_stack.log_path, "rb") as log:
        log.seek(before)
        output = log.read().decode("utf-8", "replace")
    lines = output.splitlines()
    requests_logged = [json.loads(line) for line in lines
                       if line.startswith("{") and '"message":"request"' in line.replace(" ", "")]
    assert len(requests_logged) >= 20, output[-2000:]  # the log really was captured
    assert {tokens["access_token"], tokens["refresh_token"], code, verifier} <= harvest.secrets
    assert len(harvest.secrets) >= 20
    assert leaks(lines, harvest.secrets) == []
    # The audit trail the same flows recorded (docs/audit.md) holds none either.
    trail = [path.read_text("utf-8") for path in local_stack.state_file.with_suffix(".audit").rglob("*.jsonl")]
    assert any('"action":"token.issued"' in text for text in trail)
    assert leaks(trail, harvest.secrets) == []
