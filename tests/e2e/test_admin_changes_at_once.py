"""On a local stack an admin command's change applies to the very next request: `authgate serve` drops its warm
caches when a write reaches its AWS from outside its functions (authgate_cli.local.outside_writes; docs/local.md).
On a stage the functions' caches keep a change out for up to 60 s, as documented.

Its own stack: the tenant change would reach every test of the shared one."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.e2e.admin_commands import admin
from tests.e2e.conftest import LocalStack, running_stack
from tests.e2e.flows import API_KEY, WEB, Flows

pytestmark = pytest.mark.e2e

EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS = "urn:ietf:params:oauth:token-type:access_token"
SERVER = "http://127.0.0.1:9/e2e-at-once"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    with running_stack(tmp_path_factory.mktemp("admin-at-once")) as started:
        yield started


def ran(stack: LocalStack, *args: str) -> dict[str, Any]:
    done = admin(stack, *args, "--json")
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_may_delegate_to_applies_to_the_next_token_exchange(stack: LocalStack) -> None:
    base = stack.base_url
    server = ran(stack, "resources", "create", SERVER, "--scopes", "mcp:tools charges:read")
    ran(stack, "clients", "update", "demo-web", "--resource-scopes", f"{SERVER}=mcp:tools charges:read")
    flows = Flows(base)
    subject = flows.approved({"resource": SERVER}, WEB, scope="mcp:tools charges:read")["access_token"]
    flows.close()

    def exchange() -> requests.Response:
        return requests.post(f"{base}/oauth/token", timeout=10, data={
            "grant_type": EXCHANGE, "subject_token": subject, "subject_token_type": ACCESS,
            "resource": f"{base}/charges", "scope": "charges:read"},
            auth=(server["introspection_client_id"], server["introspection_client_secret"]))

    refused = exchange()  # the warm token function now holds the resource's record, which allows no exchange
    assert (refused.status_code, refused.json()) == (400, {
        "error": "invalid_target", "error_uri": f"{base}/problems/delegation_not_allowed",
        "error_description": f"{SERVER} may not exchange tokens for {base}/charges (authgate resources update "
                             "--may-delegate-to)."})
    assert ran(stack, "resources", "update", SERVER, "--may-delegate-to", f"{base}/charges")["may_delegate_to"] == [
        f"{base}/charges"]
    exchanged = exchange()
    assert exchanged.status_code == 200, exchanged.text
    assert {k: exchanged.json()[k] for k in ("issued_token_type", "token_type", "scope")} == {
        "issued_token_type": ACCESS, "token_type": "Bearer", "scope": "charges:read"}


def test_a_tenants_new_currency_applies_to_the_next_charge(stack: LocalStack) -> None:
    base = stack.base_url
    flows = Flows(base)
    token = flows.client_credentials(scope="charges:write").json()["access_token"]
    flows.close()

    def charge(key: str) -> requests.Response:
        return requests.post(f"{base}/charges", json={"amount": 500, "currency": "gbp"}, timeout=10, headers={
            "Authorization": f"Bearer {token}", "x-api-key": API_KEY, "Idempotency-Key": key})

    refused = charge("at-once-1")  # the warm charges function now holds the demo tenant: usd and eur
    assert (refused.status_code, refused.json()["code"], refused.json()["errors"]) == (
        422, "currency_not_enabled", [{"pointer": "/currency", "detail": "is not enabled for this account"}])
    tenant = ran(stack, "tenants", "update", "demo", "--currency", "usd", "--currency", "eur", "--currency", "gbp")
    assert tenant["currencies"] == ["usd", "eur", "gbp"]
    created = charge("at-once-2")
    assert created.status_code == 201, created.text
    assert {k: created.json()[k] for k in ("amount", "currency", "status")} == {
        "amount": 500, "currency": "gbp", "status": "succeeded"}
