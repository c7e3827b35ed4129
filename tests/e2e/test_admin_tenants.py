"""`authgate tenants ...` against the running `authgate serve`: a new tenant, its first client, its
first charge, with no hand-written DynamoDB JSON; its settings changed by `update` and obeyed by the
authorization endpoint; bad input is refused without touching the stack."""

from __future__ import annotations

import json
import subprocess
import time
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from tests.contract import ContractSession
from tests.demo import CHALLENGE
from tests.e2e.conftest import REPO_ROOT, LocalStack, authgate_command
from tests.e2e.flows import hidden_fields

pytestmark = pytest.mark.e2e


def admin(stack: LocalStack, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*authgate_command(), *args], cwd=REPO_ROOT, env=stack.env(), input=stdin, check=False,
                          capture_output=True, text=True, timeout=60)


def test_a_new_tenant_gets_its_first_client_and_charge(local_stack: LocalStack) -> None:
    created = admin(local_stack, "tenants", "create", "e2e-globex", "--name", "Globex", "--currency", "gbp", "--json")
    assert created.returncode == 0, created.stderr
    assert json.loads(created.stdout) == {"tenant_id": "e2e-globex", "name": "Globex", "currencies": ["gbp"],
                                          "forbidden_scopes": [], "approved_clients": [],
                                          "client_metadata_hosts": [], "registered_clients": False,
                                          "registered_clients_cap": 100, "login_domains": [], "sca_threshold": None,
                                          "sca_max_age": 300, "require_mfa": False,
                                          "approval_webhook": None}
    shown = admin(local_stack, "tenants", "show", "e2e-globex")
    assert shown.returncode == 0 and shown.stdout.splitlines()[:3] == [
        "tenant_id:              e2e-globex", "name:                   Globex", "currencies:             gbp"]
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
    assert unknown.stderr.splitlines()[-1] == "authgate tenants: tenant 'e2e-nobody' does not exist here (see `authgate tenants list`)"


REDIRECT = "http://127.0.0.1:9/callback"


def authorize(base_url: str, client_id: str, tenant: str, username: str = "bob") -> requests.Response:
    """Open the consent page for `client_id`; sign in as bob (or `username`) of `tenant` when it is a page with a
    form."""
    with requests.Session() as session:
        query = {"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT, "state": "s",
                 "scope": "charges:read", "code_challenge": CHALLENGE, "code_challenge_method": "S256"}
        page = session.get(f"{base_url}/oauth/authorize", params=query, headers={"Accept": "text/html"},
                           allow_redirects=False, timeout=30)
        if page.status_code != 200:
            return page
        fields = hidden_fields(page.text)
        fields.update(username=username, password="bob-e2e-password", decision="approve", tenant=tenant)
        return session.post(f"{base_url}/oauth/authorize", data=fields, headers={"Accept": "text/html"},
                            allow_redirects=False, timeout=30)


def test_update_changes_each_setting_and_the_authorization_endpoint_obeys(local_stack: LocalStack) -> None:
    """Issue 26 items 1 and 3: `tenants update` for every setting; --no-registered-clients stops new
    authorizations of the registered clients the tenant already holds."""
    created = admin(local_stack, "tenants", "create", "e2e-initech", "--currency", "usd", "--registered-clients")
    assert created.returncode == 0, created.stderr
    user = admin(local_stack, "users", "create", "--tenant", "e2e-initech", "--username", "bob", "--password-stdin",
                 stdin="bob-e2e-password\n")
    assert user.returncode == 0, user.stderr
    registered = requests.post(f"{local_stack.base_url}/oauth/register", timeout=30, json={
        "client_name": "E2E agent", "redirect_uris": [REDIRECT], "scope": "charges:read",
        "grant_types": ["authorization_code", "refresh_token"]})
    assert registered.status_code == 201, registered.text
    client_id = registered.json()["client_id"]
    first = authorize(local_stack.base_url, client_id, "e2e-initech")
    assert first.status_code == 303 and "code" in parse_qs(urlsplit(first.headers["Location"]).query)

    updated = admin(local_stack, "tenants", "update", "e2e-initech", "--name", "Initech", "--currency", "eur",
                    "--currency", "usd", "--forbid-scope", "charges:refund", "--approve-client", "e2e-initech-web",
                    "--client-metadata-host", ".initech.example", "--no-registered-clients",
                    "--registered-clients-cap", "3", "--sca-threshold", "5000", "--sca-max-age", "120", "--json")
    assert updated.returncode == 0, updated.stderr
    assert json.loads(updated.stdout) == {
        "tenant_id": "e2e-initech", "name": "Initech", "currencies": ["eur", "usd"],
        "forbidden_scopes": ["charges:refund"], "approved_clients": ["e2e-initech-web"],
        "client_metadata_hosts": [".initech.example"], "registered_clients": False, "registered_clients_cap": 3,
        "login_domains": [], "sca_threshold": 5000, "sca_max_age": 120, "require_mfa": False,
        "approval_webhook": None}
    assert admin(local_stack, "tenants", "show", "e2e-initech").stdout.splitlines() == [
        "tenant_id:              e2e-initech",
        "name:                   Initech",
        "currencies:             eur usd",
        "forbidden_scopes:       charges:refund",
        "approved_clients:       e2e-initech-web",
        "client_metadata_hosts:  .initech.example",
        "registered_clients:     no",
        "registered_clients_cap: 3",
        "login_domains:          -",
        "sca_threshold:          5000",
        "sca_max_age:            120",
        "require_mfa:            no",
        "approval_webhook:       -",
    ]
    refused = authorize(local_stack.base_url, client_id, "e2e-initech")
    assert (refused.status_code, refused.headers["Content-Type"], "Location" in refused.headers) == (
        400, "text/html; charset=utf-8", False)
    assert "Error code: <code>registered_client_not_allowed</code>" in refused.text

    cleared = admin(local_stack, "tenants", "update", "e2e-initech", "--no-forbid-scope", "--no-approve-client",
                    "--no-client-metadata-host", "--registered-clients")
    assert (cleared.returncode, cleared.stdout) == (0, "tenant e2e-initech updated (eur, usd)\n")
    again = authorize(local_stack.base_url, client_id, "e2e-initech")
    assert again.status_code == 303 and "code" in parse_qs(urlsplit(again.headers["Location"]).query)


def test_a_login_domain_finds_the_organisation_of_an_email(local_stack: LocalStack) -> None:
    """Issue 27 item 8: users of a tenant with a login domain sign in with their email, no organisation typed."""
    created = admin(local_stack, "tenants", "create", "e2e-umbrella", "--currency", "usd", "--registered-clients")
    assert created.returncode == 0, created.stderr
    domain = admin(local_stack, "tenants", "update", "e2e-umbrella", "--login-domain", "Umbrella.example", "--json")
    assert (domain.returncode, json.loads(domain.stdout)["login_domains"]) == (0, ["umbrella.example"])
    user = admin(local_stack, "users", "create", "--tenant", "e2e-umbrella", "--username", "bob", "--email",
                 "bob@umbrella.example", "--password-stdin", stdin="bob-e2e-password\n")
    assert user.returncode == 0, user.stderr
    registered = requests.post(f"{local_stack.base_url}/oauth/register", timeout=30, json={
        "client_name": "E2E agent", "redirect_uris": [REDIRECT], "scope": "charges:read",
        "grant_types": ["authorization_code"]})
    assert registered.status_code == 201, registered.text
    signed_in = authorize(local_stack.base_url, registered.json()["client_id"], "", username="bob@umbrella.example")
    assert signed_in.status_code == 303 and "code" in parse_qs(urlsplit(signed_in.headers["Location"]).query)
    taken = admin(local_stack, "tenants", "update", "demo", "--login-domain", "umbrella.example")
    assert (taken.returncode, taken.stdout, taken.stderr.splitlines()[-1]) == (
        2, "", "authgate tenants: the login domain 'umbrella.example' already belongs to tenant 'e2e-umbrella'")


@pytest.mark.parametrize("args, line", [
    (["update", "e2e-nobody", "--name", "x"],
     "authgate tenants: tenant 'e2e-nobody' does not exist here (see `authgate tenants list`)"),
    (["update", "demo"],
     "authgate tenants: update needs at least one setting to change (see `authgate tenants update --help`)"),
    (["update", "demo", "--no-currency"],
     "authgate tenants: give at least one --currency (the currencies this tenant's charges may use)"),
])
def test_bad_updates_are_one_line_and_change_nothing(local_stack: LocalStack, args: list[str], line: str) -> None:
    before = admin(local_stack, "tenants", "show", "demo", "--json").stdout
    refused = admin(local_stack, "tenants", *args)
    # The refusal is the last line (a command that reached the stack names it first).
    assert (refused.returncode, refused.stdout, refused.stderr.splitlines()[-1]) == (2, "", line)
    assert "Traceback" not in refused.stderr
    assert admin(local_stack, "tenants", "show", "demo", "--json").stdout == before
