"""Rich Authorization Requests (RFC 9396) end to end through a real `authgate serve`, with clients nobody here
wrote: panva's oauth4webapi (Node) runs PAR + RAR + the code flow, Authlib a plain authorization request with
authorization_details; the charges API enforces what alice approved. Then the attacks, each answered in full
(status, headers, body): a charge beyond the amount or in another currency, a third charge on max_charges 2
under 32 parallel requests (exactly 2 created), details widened at refresh, an unknown type, an object a
registered type's schema refuses.

The stack is this module's own, with an API key on the premium usage plan (burst 200), so 32 parallel
requests measure the charges function, not the gateway's throttle.
"""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from tests.contract import ContractSession
from tests.e2e.admin_commands import admin
from tests.e2e.conftest import REPO_ROOT, LocalStack, running_stack
from tests.e2e.flows import Flows, pkce_pair

pytestmark = [pytest.mark.e2e]

JS = Path(__file__).with_name("js")
SCRIPT = JS / "rar_flow.mjs"
WEB_REDIRECT = "http://127.0.0.1:8765/callback"
API_KEY = "rar-burst-key"
ORDER = {"type": "charge", "actions": ["create"], "amount": 1250, "currency": "usd", "description": "Order 1042",
         "max_charges": 1}
GRANTED = {"actions": ["create"], "amount": 1250, "currency": "usd", "description": "Order 1042", "max_charges": 1,
           "type": "charge"}
NO_STORE_JSON = {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    tmp = tmp_path_factory.mktemp("authgate-rar")
    local = REPO_ROOT / "cli" / "authgate_cli" / "local"
    seed = json.loads((local / "demo_seed.json").read_text("utf-8"))
    seed["api_keys"].append({"value": API_KEY, "usage_plan": "PremiumUsagePlan"})
    for included in seed.get("include", []):  # the demo seed's includes, beside it
        (tmp / included).write_text((local / included).read_text("utf-8"))
    path = tmp / "seed.json"
    path.write_text(json.dumps(seed))
    with running_stack(tmp, "--seed", str(path)) as started:
        yield started


def approved_tokens(stack: LocalStack, *entries: dict[str, Any]) -> dict[str, Any]:
    """alice signs in and approves `entries` (a plain authorization request); the token response."""
    flows = Flows(stack.base_url)
    issued = flows.approved({"authorization_details": json.dumps(list(entries))})
    flows.close()
    return issued


def charge(stack: LocalStack, token: str, amount: int, currency: str = "usd") -> requests.Response:
    return requests.post(f"{stack.base_url}/charges", json={"amount": amount, "currency": currency}, timeout=30,
                         headers={"x-api-key": API_KEY, "Authorization": f"Bearer {token}",
                                  "Idempotency-Key": f"rar-{uuid.uuid4()}"})


def assert_exceeded(response: requests.Response, detail: str, base_url: str) -> None:
    headers = response.headers
    assert (response.status_code, headers["Content-Type"], headers["Vary"]) == (
        403, "application/problem+json", "Accept")
    assert "RateLimit" in headers and headers["x-request-id"]
    assert response.json() == {
        "type": f"{base_url}/problems/authorization_details_exceeded", "title": "Beyond the authorized details",
        "status": 403, "detail": detail, "instance": "/charges", "code": "authorization_details_exceeded",
        "traceId": headers["x-request-id"]}


def assert_oauth_error(response: requests.Response, description: str, base_url: str) -> None:
    assert response.status_code == 400
    assert {k: response.headers[k] for k in NO_STORE_JSON} == NO_STORE_JSON
    assert response.json() == {"error": "invalid_authorization_details", "error_description": description,
                               "error_uri": f"{base_url}/problems/invalid_authorization_details"}


# ------------------------------------------------------------------ clients nobody here wrote


def test_oauth4webapi_runs_par_rar_and_the_code_flow(stack: LocalStack) -> None:
    if not (JS / "node_modules" / "oauth4webapi").is_dir():
        pytest.fail("oauth4webapi is not installed: run `npm ci --prefix tests/e2e/js` (make test does)")
    env = {"ISSUER": stack.base_url, "REDIRECT_URI": WEB_REDIRECT, "API_KEY": API_KEY,
           "DETAILS": json.dumps([ORDER]), "PATH": "/usr/bin:/bin:/usr/local/bin"}
    run = subprocess.run(["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert "error" not in result, (result, stack.log(40))
    assert result["steps"] == ["discovery", "par", "authorize", "token", "refresh", "beyond_amount",
                               "other_currency", "within", "again"]
    assert result["discovery"] == {"types": ["charge"]}
    assert result["authorize"] == {"shown": ["charge up to 12.50 USD, once — &#x27;Order 1042&#x27;"]}
    assert result["token"] == {"authorization_details": [GRANTED], "has_refresh": True}
    assert result["refresh"] == {"authorization_details": [GRANTED]}
    assert (result["beyond_amount"]["status"], result["beyond_amount"]["body"]["detail"]) == (
        403, "The approved payment is at most 12.50 USD a charge; this charge is 12.51 USD.")
    assert (result["other_currency"]["status"], result["other_currency"]["body"]["detail"]) == (
        403, "The approved payment is in USD, not EUR.")
    assert (result["within"]["status"], result["within"]["body"]["amount"]) == (201, 1250)
    assert result["within"]["body"]["grant_id"]
    assert (result["again"]["status"], result["again"]["body"]["code"]) == (403, "authorization_details_exceeded")


def test_authlib_runs_a_plain_authorization_request_with_details(stack: LocalStack) -> None:
    from authlib.integrations.requests_client import OAuth2Session

    client = OAuth2Session("demo-web", "demo-web-secret", scope="charges:read charges:write",
                           redirect_uri=WEB_REDIRECT, code_challenge_method="S256")
    verifier = "v" * 20 + "-authlib-rar-code-verifier-0123456789"
    url, state = client.create_authorization_url(f"{stack.base_url}/oauth/authorize", code_verifier=verifier,
                                                 authorization_details=json.dumps([{**ORDER, "max_charges": 2}]))
    flows = Flows(stack.base_url)
    page = flows.request("GET", url, headers={"Accept": "text/html"})
    assert page.status_code == 200 and "charge up to 12.50 USD, twice" in page.text
    location = flows.submit_login(page).headers["Location"]
    assert parse_qs(urlsplit(location).query)["state"] == [state]
    token = client.fetch_token(f"{stack.base_url}/oauth/token", authorization_response=location,
                               code_verifier=verifier)
    assert token["authorization_details"] == [{**GRANTED, "max_charges": 2}]
    refreshed = client.refresh_token(f"{stack.base_url}/oauth/token", refresh_token=token["refresh_token"])
    assert [charge(stack, t, 1000).status_code for t in (token["access_token"], refreshed["access_token"])] == [
        201, 201]
    assert_exceeded(charge(stack, refreshed["access_token"], 1000),
                    "This grant has already made the 2 charges its approved payment allows (max_charges); ask the "
                    "user to approve a new payment.", stack.base_url)


# ------------------------------------------------------------------ the attacks


def test_32_parallel_charges_on_max_charges_2_create_exactly_2(stack: LocalStack) -> None:
    token = approved_tokens(stack, {**ORDER, "max_charges": 2})["access_token"]
    with ThreadPoolExecutor(32) as pool:
        responses = list(pool.map(lambda _: charge(stack, token, 1000), range(32)))
    created = [r for r in responses if r.status_code == 201]
    refused = [r for r in responses if r.status_code != 201]
    assert (len(created), len(refused)) == (2, 30), sorted(r.status_code for r in responses)
    for response in refused:
        assert_exceeded(response, "This grant has already made the 2 charges its approved payment allows "
                                  "(max_charges); ask the user to approve a new payment.", stack.base_url)
    grant = {r.json()["grant_id"] for r in created}
    assert len(grant) == 1


def test_details_widened_at_refresh_are_refused(stack: LocalStack) -> None:
    issued = approved_tokens(stack, ORDER)
    session = ContractSession(stack.base_url)
    widened = session.post("/oauth/token", auth=("demo-web", "demo-web-secret"), timeout=30, data={
        "grant_type": "refresh_token", "refresh_token": issued["refresh_token"],
        "authorization_details": json.dumps([{**ORDER, "amount": 99999}])})
    assert_oauth_error(widened, "authorization_details[0] is not within the details of this grant (RFC 9396 6.2: "
                                "a token request may only narrow them).", stack.base_url)
    # The refresh token was not spent by the refusal: the grant goes on as approved.
    again = session.post("/oauth/token", auth=("demo-web", "demo-web-secret"), timeout=30, data={
        "grant_type": "refresh_token", "refresh_token": issued["refresh_token"]})
    assert (again.status_code, again.json()["authorization_details"]) == (200, [GRANTED])


def test_an_unknown_type_is_refused_at_par(stack: LocalStack) -> None:
    _, challenge = pkce_pair()
    pushed = ContractSession(stack.base_url).post("/oauth/par", auth=("demo-web", "demo-web-secret"), timeout=30,
                                                  data={"response_type": "code", "redirect_uri": WEB_REDIRECT,
                                                        "scope": "charges:write", "code_challenge": challenge,
                                                        "code_challenge_method": "S256",
                                                        "authorization_details": '[{"type": "payment_initiation"}]'})
    assert_oauth_error(pushed, "authorization_details[0].type 'payment_initiation' is not a type the requested "
                               "resource accepts (the charges API's is charge).", stack.base_url)


def test_an_object_its_registered_schema_refuses_is_invalid(stack: LocalStack, tmp_path: Path) -> None:
    files = "http://127.0.0.1:9/e2e-rar-schema"
    assert admin(stack, "resources", "create", files, "--scopes", "files:read").returncode == 0
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"type": "object", "required": ["type", "folder"],
                                  "properties": {"folder": {"type": "string", "maxLength": 10}}}))
    declared = admin(stack, "resources", "update", files, "--authorization-details-type", "file_access",
                     "--schema", str(schema))
    assert declared.returncode == 0, declared.stderr
    _, challenge = pkce_pair()
    form = {"response_type": "code", "redirect_uri": WEB_REDIRECT, "scope": "files:read", "resource": files,
            "code_challenge": challenge, "code_challenge_method": "S256"}
    session = ContractSession(stack.base_url)
    refused = session.post("/oauth/par", auth=("demo-web", "demo-web-secret"), timeout=30, data={
        **form, "authorization_details": json.dumps([{"type": "file_access", "folder": "a-very-long-folder"}])})
    assert_oauth_error(refused, "authorization_details[0].folder does not match the schema of type 'file_access': "
                                "'a-very-long-folder' is too long", stack.base_url)
    accepted = session.post("/oauth/par", auth=("demo-web", "demo-web-secret"), timeout=30, data={
        **form, "authorization_details": json.dumps([{"type": "file_access", "folder": "Invoices"}])})
    assert accepted.status_code == 201, accepted.text
