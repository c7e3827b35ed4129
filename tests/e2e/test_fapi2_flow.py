"""FAPI 2.0 end to end through a real `authgate serve`: panva's oauth4webapi (Node) runs demo-fapi's
whole flow, and joserfc + requests (Python) make the attacks on PAR and private_key_jwt, each
answered in the error contract (every response goes through ContractSession).

oauth4webapi comes from npm (tests/e2e/js/package-lock.json, `npm ci` in `make test`).
"""

from __future__ import annotations

import json
import re
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.contract import ContractSession
from tests.e2e.flows import hidden_fields, pkce_pair
from tests.functional.assertion_support import assertion, demo_fapi_key, new_private_jwk

pytestmark = [pytest.mark.e2e]

JS = Path(__file__).with_name("js")
SCRIPT = JS / "fapi2_flow.mjs"
FAPI_REDIRECT = "http://127.0.0.1:8765/fapi/callback"
WEB_REDIRECT = "http://127.0.0.1:8765/callback"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
NO_STORE_JSON = {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"}


def test_oauth4webapi_runs_the_fapi2_flow(local_stack: Any) -> None:
    if not (JS / "node_modules" / "oauth4webapi").is_dir():
        pytest.fail("oauth4webapi is not installed: run `npm ci --prefix tests/e2e/js` (make test does)")
    env = {"ISSUER": local_stack.base_url, "CLIENT_JWK": json.dumps(demo_fapi_key()), "REDIRECT_URI": FAPI_REDIRECT,
           "API_KEY": "demo-api-key", "PATH": "/usr/bin:/bin:/usr/local/bin"}
    run = subprocess.run(["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert "error" not in result, (result, local_stack.log(40))
    assert result["steps"] == ["discovery", "par", "authorize", "token", "refresh", "create_charge", "list_charges",
                               "bearer_fallback"]
    assert result["discovery"] == {"par": f"{local_stack.base_url}/oauth/par", "require_par": False}
    assert result["par"] == {"request_uri_prefix": "urn:ietf:params:oauth:request_uri", "expires_in": 60}
    assert result["authorize"] == {"iss": local_stack.base_url}
    assert result["token"] == {"token_type": "dpop", "scope": "charges:read charges:write", "has_refresh": True}
    # FAPI 2.0 5.3.2.1 item 9: the refresh token is not rotated, and serves again.
    assert result["refresh"] == {"token_type": "dpop", "rotated": False, "again": "dpop"}
    assert result["create_charge"]["status"] == 201
    assert result["create_charge"]["body"]["amount"] == 1234
    assert result["list_charges"] == {"status": 200}
    assert result["bearer_fallback"]["status"] == 401


def test_the_python_flow_in_the_docs_runs(local_stack: Any, tmp_path: Path) -> None:
    """docs/fapi2.md's joserfc + requests flow, exactly as printed there, against authgate serve."""
    import sys

    doc = (Path(__file__).resolve().parents[2] / "docs" / "fapi2.md").read_text("utf-8")
    block = re.search(r"<!-- fapi2-python-begin -->\n```python\n(.*?)```\n<!-- fapi2-python-end -->", doc, re.DOTALL)
    assert block, "docs/fapi2.md lost its Python flow"
    script = tmp_path / "fapi2_flow.py"
    script.write_text(block.group(1))
    key = tmp_path / "demo-fapi.jwk"
    key.write_text(json.dumps(demo_fapi_key()))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False,
                         env={"ISSUER": local_stack.base_url, "CLIENT_JWK_FILE": str(key), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, (run.stderr[-2000:], local_stack.log(40))
    assert json.loads(run.stdout) == {"token_type": "DPoP", "refreshed_type": "DPoP", "charges_status": 200}


# ------------------------------------------------------------------ the attacks (joserfc + requests)

@pytest.fixture
def session(base_url: str) -> ContractSession:
    return ContractSession(base_url)


def signed(base_url: str, key: dict[str, Any] | None = None, **claims: Any) -> str:
    return assertion(key or demo_fapi_key(), "demo-fapi", int(time.time()), aud=claims.pop("aud", base_url), **claims)


def push_fapi(session: ContractSession, client_assertion: str, **overrides: str) -> requests.Response:
    _verifier, challenge = pkce_pair()
    data = {"response_type": "code", "client_id": "demo-fapi", "redirect_uri": FAPI_REDIRECT, "scope": "charges:read",
            "state": "st", "code_challenge": challenge, "code_challenge_method": "S256",
            "client_assertion_type": ASSERTION_TYPE, "client_assertion": client_assertion, **overrides}
    return session.post("/oauth/par", data=data, timeout=30)


def push_web(session: ContractSession, **overrides: str) -> str:
    _verifier, challenge = pkce_pair()
    data = {"response_type": "code", "redirect_uri": WEB_REDIRECT, "scope": "charges:read", "state": "web-state",
            "code_challenge": challenge, "code_challenge_method": "S256", **overrides}
    response = session.post("/oauth/par", data=data, auth=("demo-web", "demo-web-secret"), timeout=30)
    assert response.status_code == 201, response.text
    return str(response.json()["request_uri"])


def authorize(session: ContractSession, **params: str) -> requests.Response:
    return session.get("/oauth/authorize", params=params, headers={"Accept": "text/html"}, allow_redirects=False,
                       timeout=30)


# What the transport and the gateway emulator add, not the function's answer.
TRANSPORT = {"x-request-id", "date", "server", "content-length", "connection", "x-amzn-requestid", "x-amz-apigw-id"}


def lower(headers: dict[str, str]) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()}


def contract_headers(response: requests.Response) -> dict[str, str]:
    return {k.lower(): v for k, v in response.headers.items() if k.lower() not in TRANSPORT}


def assert_invalid_client(response: requests.Response, base_url: str) -> None:
    assert (response.status_code, contract_headers(response), response.json()) == (
        401, {**lower(NO_STORE_JSON), "www-authenticate": 'Basic realm="oauth"'},
        {"error": "invalid_client", "error_description": "Client authentication failed.",
         "error_uri": f"{base_url}/problems/invalid_client"})
    assert response.headers["x-request-id"]


def assert_request_uri_page(response: requests.Response, detail: str) -> None:
    assert response.status_code == 400 and "Location" not in response.headers
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert response.headers["Cache-Control"] == "no-store"
    assert "Invalid request_uri" in response.text and detail in response.text
    assert "invalid_request_uri" in response.text and response.headers["x-request-id"] in response.text


def test_a_pushed_request_by_private_key_jwt_is_201(session: ContractSession, base_url: str) -> None:
    response = push_fapi(session, signed(base_url))
    assert response.status_code == 201, response.text
    assert contract_headers(response) == lower(NO_STORE_JSON)
    body = response.json()
    assert set(body) == {"request_uri", "expires_in"} and body["expires_in"] == 60
    assert re.fullmatch(r"urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}", body["request_uri"])


def test_a_replayed_assertion_is_refused(session: ContractSession, base_url: str) -> None:
    token = signed(base_url)
    assert push_fapi(session, token).status_code == 201
    assert_invalid_client(push_fapi(session, token), base_url)


@pytest.mark.parametrize("aud", ["{base}/oauth/token", "{base}/oauth/par", "https://attacker.example"])
def test_an_assertion_for_another_audience_is_refused(session: ContractSession, base_url: str, aud: str) -> None:
    assert_invalid_client(push_fapi(session, signed(base_url, aud=aud.format(base=base_url))), base_url)


def test_an_assertion_signed_by_an_unregistered_key_is_refused(session: ContractSession, base_url: str) -> None:
    stranger = new_private_jwk("EC", kid=demo_fapi_key()["kid"])
    assert_invalid_client(push_fapi(session, signed(base_url, key=stranger)), base_url)


def test_an_expired_assertion_is_refused(session: ContractSession, base_url: str) -> None:
    now = int(time.time())
    assert_invalid_client(push_fapi(session, signed(base_url, iat=now - 600, exp=now - 300, jti=str(uuid.uuid4()))),
                          base_url)


def test_a_request_uri_is_used_once(session: ContractSession) -> None:
    request_uri = push_web(session)
    assert authorize(session, client_id="demo-web", request_uri=request_uri).status_code == 200
    assert_request_uri_page(authorize(session, client_id="demo-web", request_uri=request_uri),
                            "The request_uri has already been used")


def test_a_request_uri_of_another_client_is_refused(session: ContractSession) -> None:
    request_uri = push_web(session)
    assert_request_uri_page(authorize(session, client_id="demo-spa", request_uri=request_uri),
                            "The request_uri was not pushed by this client_id.")


def test_query_parameters_mixed_with_request_uri_change_nothing(session: ContractSession) -> None:
    request_uri = push_web(session)
    page = authorize(session, client_id="demo-web", request_uri=request_uri, redirect_uri="https://attacker.example/cb",
                     scope="charges:refund", state="forged")
    assert page.status_code == 200 and "charges:refund" not in page.text
    fields = hidden_fields(page.text)
    fields.update(username="alice", password="alice-password", decision="approve")
    done = session.post("/oauth/authorize", data=fields, headers={"Accept": "text/html"}, allow_redirects=False,
                        timeout=30)
    assert done.status_code == 303
    location = done.headers["Location"]
    assert location.startswith(WEB_REDIRECT + "?") and "state=web-state" in location and "forged" not in location


@pytest.mark.slow
def test_an_expired_request_uri_is_refused(session: ContractSession) -> None:
    request_uri = push_web(session)
    time.sleep(61)  # the request_uri lives 60 s; the server's clock is the real one here
    assert_request_uri_page(authorize(session, client_id="demo-web", request_uri=request_uri),
                            "The request_uri has expired.")
