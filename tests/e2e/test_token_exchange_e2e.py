"""RFC 8693 token exchange through a real `authgate serve`, by Authlib: an MCP server that holds alice's token
trades it, with its own credentials (`authgate resources create --json`), for a narrower /charges token that
creates a charge recording who acted; the refusals a client sees, whole."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session

from tests.demo import ALICE_ID
from tests.e2e.admin_commands import admin
from tests.e2e.conftest import LocalStack
from tests.e2e.flows import API_KEY, WEB, Flows

pytestmark = pytest.mark.e2e

SERVER = "http://127.0.0.1:9/e2e-exchange"
SCOPES = "mcp:tools charges:read charges:write"
EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS = "urn:ietf:params:oauth:token-type:access_token"


def claims(token: str) -> dict[str, Any]:
    payload = token.split(".")[1]
    return dict(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))))


def alices_token(base_url: str) -> dict[str, Any]:
    """alice signs in to demo-web, which gets a token for the MCP server (code flow with PKCE, RFC 8707)."""
    flows = Flows(base_url)
    token = flows.approved({"resource": SERVER}, WEB, scope=SCOPES)
    flows.close()
    return token


@pytest.fixture(scope="module")
def server(local_stack: LocalStack) -> tuple[str, str]:
    created = admin(local_stack, "resources", "create", SERVER, "--scopes", SCOPES, "--json")
    assert created.returncode == 0, created.stderr
    out = json.loads(created.stdout)
    granted = admin(local_stack, "clients", "update", "demo-web", "--resource-scopes", f"{SERVER}={SCOPES}")
    assert granted.returncode == 0, granted.stderr
    updated = admin(local_stack, "resources", "update", SERVER, "--may-delegate-to", f"{local_stack.base_url}/charges",
                    "--json")
    assert updated.returncode == 0, updated.stderr
    assert json.loads(updated.stdout)["may_delegate_to"] == [f"{local_stack.base_url}/charges"]
    return out["introspection_client_id"], out["introspection_client_secret"]


def test_authlib_exchanges_the_servers_token_for_a_charges_token_that_records_the_actor(
        local_stack: LocalStack, server: tuple[str, str]) -> None:
    base = local_stack.base_url
    subject = alices_token(base)
    assert claims(subject["access_token"])["aud"] == SERVER
    session = OAuth2Session(*server, token_endpoint_auth_method="client_secret_basic")

    def exchanged_for(scope: str) -> dict[str, Any]:
        return dict(session.fetch_token(f"{base}/oauth/token", grant_type=EXCHANGE,
                                        subject_token=subject["access_token"], subject_token_type=ACCESS,
                                        resource=f"{base}/charges", scope=scope))

    token = exchanged_for("charges:write")
    assert {k: token[k] for k in ("issued_token_type", "token_type", "scope")} == {
        "issued_token_type": ACCESS, "token_type": "Bearer", "scope": "charges:write"}
    exchanged = claims(token["access_token"])
    assert (exchanged["sub"], exchanged["username"], exchanged["aud"], exchanged["act"], exchanged["client_id"]) == (
        ALICE_ID, "alice", f"{base}/charges", {"sub": SERVER}, server[0])

    auth = {"Authorization": f"Bearer {token['access_token']}", "x-api-key": API_KEY}
    created = requests.post(f"{base}/charges", json={"amount": 700, "currency": "usd"}, headers=auth, timeout=10)
    assert created.status_code == 201, created.text
    assert created.json()["created_by"] == {"sub": ALICE_ID, "username": "alice", "act": {"sub": SERVER}}
    reader = exchanged_for("charges:read")["access_token"]
    shown = requests.get(f"{base}/charges/{created.json()['id']}", headers={"Authorization": f"Bearer {reader}", "x-api-key": API_KEY},
                         timeout=10)
    assert (shown.status_code, shown.json()) == (200, created.json())

    # Revoking alice's grant (its refresh token, RFC 7009 2.1) revokes what was exchanged from it.
    assert Flows(base).revoke(subject["refresh_token"], hint="refresh_token").status_code == 200
    refused = requests.get(f"{base}/charges", headers=auth, timeout=10)
    assert refused.status_code == 401
    assert refused.headers["WWW-Authenticate"].startswith('Bearer realm="api", error="invalid_token"')
    assert refused.json()["detail"] == "The access token was revoked."


def test_refusals_over_http(local_stack: LocalStack, server: tuple[str, str]) -> None:
    base = local_stack.base_url
    subject = alices_token(base)["access_token"]

    def exchange(**fields: str) -> requests.Response:
        return requests.post(f"{base}/oauth/token", auth=server, timeout=10, data={
            "grant_type": EXCHANGE, "subject_token": subject, "subject_token_type": ACCESS, **fields})

    def refused(answer: requests.Response, error: str, description: str, code: str) -> None:
        assert (answer.status_code, answer.headers["Content-Type"], answer.headers["Cache-Control"], answer.json()) == (
            400, "application/json", "no-store",
            {"error": error, "error_description": description, "error_uri": f"{base}/problems/{code}"})

    other = "http://127.0.0.1:9/e2e-exchange-other"
    assert admin(local_stack, "resources", "create", other, "--scopes", "charges:read").returncode == 0
    refused(exchange(resource=other), "invalid_target",
            f"{SERVER} may not exchange tokens for {other} (authgate resources update --may-delegate-to).",
            "delegation_not_allowed")
    refused(exchange(resource=f"{base}/charges", scope="charges:refund"), "invalid_scope",
            "The scope 'charges:refund' exceeds the subject token's scope (RFC 8693 2.1: an exchange only narrows).",
            "invalid_scope")
    refused(exchange(resource=f"{base}/charges", subject_token="x.y.z"), "invalid_request",
            f"The subject_token is not an active access token for {SERVER}: The access token is not a JWT.",
            "subject_token_invalid")
