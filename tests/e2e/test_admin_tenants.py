"""`authgate tenants ...` against the running `authgate serve`: a new tenant, its first client, its
first charge, with no hand-written DynamoDB JSON; bad input is refused without touching the stack."""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from tests.contract import ContractSession
from tests.e2e.conftest import REPO_ROOT, LocalStack, authgate_command

pytestmark = pytest.mark.e2e


def admin(stack: LocalStack, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*authgate_command(), *args], cwd=REPO_ROOT, env=stack.env(), check=False,
                          capture_output=True, text=True, timeout=60)


def test_a_new_tenant_gets_its_first_client_and_charge(local_stack: LocalStack) -> None:
    created = admin(local_stack, "tenants", "create", "e2e-globex", "--name", "Globex", "--currency", "gbp", "--json")
    assert created.returncode == 0, created.stderr
    assert json.loads(created.stdout) == {"tenant_id": "e2e-globex", "name": "Globex", "currencies": ["gbp"],
                                          "forbidden_scopes": [], "approved_clients": [],
                                          "client_metadata_hosts": [], "registered_clients": False,
                                          "registered_clients_cap": 100}
    shown = admin(local_stack, "tenants", "show", "e2e-globex")
    assert shown.returncode == 0 and shown.stdout.splitlines()[1].split() == ["e2e-globex", "Globex", "gbp", "-", "-"]
    listed = admin(local_stack, "tenants", "list", "--json")
    assert {"demo", "acme", "e2e-globex"} <= {t["tenant_id"] for t in json.loads(listed.stdout)}

    client = admin(local_stack, "clients", "create", "--client-id", "e2e-globex-backend", "--tenant", "e2e-globex",
                   "--grant", "client_credentials", "--scope", "charges:write", "--json")
    assert client.returncode == 0, client.stderr
    secret = json.loads(client.stdout)["client_secret"]

    with ContractSession(local_stack.base_url) as http:
        token = http.post("/oauth/token", auth=("e2e-globex-backend", secret),
                          data={"grant_type": "client_credentials", "scope": "charges:write"})
        assert token.status_code == 200, token.text
        headers = {"x-api-key": "demo-api-key", "Authorization": f"Bearer {token.json()['access_token']}"}
        time.sleep(0.2)  # the demo API key's plan is shared with other e2e tests: stay under its rate
        charge = http.post("/charges", json={"amount": 500, "currency": "gbp"}, headers=headers)
        assert charge.status_code == 201, charge.text
        assert (charge.json()["currency"], charge.json()["amount"]) == ("gbp", 500)
        time.sleep(0.2)
        refused = http.post("/charges", json={"amount": 500, "currency": "usd"}, headers=headers)
        assert refused.status_code == 422  # the tenant enabled gbp only (checked by the contract too)


def test_bad_input_and_duplicates_are_one_line_on_stderr(local_stack: LocalStack) -> None:
    bad = admin(local_stack, "tenants", "create", "e2e bad", "--currency", "usd")
    assert (bad.returncode, bad.stdout) == (2, "")
    assert bad.stderr.splitlines() == [bad.stderr.strip()] and "invalid tenant id 'e2e bad'" in bad.stderr
    duplicate = admin(local_stack, "tenants", "create", "demo", "--currency", "usd")
    assert duplicate.returncode == 1
    assert duplicate.stderr.splitlines()[-1] == "authgate tenants: tenant 'demo' already exists"
    unknown = admin(local_stack, "tenants", "show", "e2e-nobody")
    assert unknown.returncode == 2
    assert unknown.stderr.splitlines()[-1] == "authgate tenants: unknown tenant 'e2e-nobody' (see `authgate tenants list`)"
