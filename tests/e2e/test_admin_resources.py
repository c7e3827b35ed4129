"""`authgate resources ...` against the running `authgate serve`: a registered resource gets tokens with its
`aud`, its introspection credentials see exactly its tokens, and deleting it stops both."""

from __future__ import annotations

import base64
import json

import pytest
import requests

from tests.demo import SECRETS
from tests.e2e.admin_commands import admin, one_line_refusal
from tests.e2e.conftest import LocalStack

pytestmark = pytest.mark.e2e

RESOURCE = "http://127.0.0.1:9/e2e-mcp"


def claims(token: str) -> dict[str, object]:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def cc_token(base_url: str, **extra: str) -> requests.Response:
    return requests.post(f"{base_url}/oauth/token", data={"grant_type": "client_credentials", **extra},
                         auth=("demo-service", SECRETS["demo-service"]), timeout=10)


def test_create_use_introspect_update_delete(local_stack: LocalStack) -> None:
    created = admin(local_stack, "resources", "create", RESOURCE, "--scopes", "mcp:read mcp:write",
                    "--tenants", "demo", "--json")
    assert created.returncode == 0, created.stderr
    out = json.loads(created.stdout)
    assert set(out) == {"resource", "scopes", "introspection_client_id", "introspection_client_secret"}
    assert (out["resource"], out["scopes"]) == (RESOURCE, ["mcp:read", "mcp:write"])
    rs = (out["introspection_client_id"], out["introspection_client_secret"])

    issued = cc_token(local_stack.base_url, resource=RESOURCE, scope="mcp:read")
    assert issued.status_code == 200, issued.text
    token = issued.json()["access_token"]
    assert (claims(token)["aud"], issued.json()["scope"]) == (RESOURCE, "mcp:read")
    charges = cc_token(local_stack.base_url, scope="charges:read").json()["access_token"]

    def introspect(t: str) -> requests.Response:
        return requests.post(f"{local_stack.base_url}/oauth/introspect", data={"token": t}, auth=rs, timeout=10)

    seen = introspect(token)
    assert (seen.status_code, seen.json()["active"], seen.json()["aud"], seen.json()["client_id"]) == (
        200, True, RESOURCE, "demo-service")
    assert introspect(charges).json() == {"active": False}
    # The introspection client may do nothing else.
    assert requests.post(f"{local_stack.base_url}/oauth/token", data={"grant_type": "client_credentials"},
                         auth=rs, timeout=10).json()["error"] == "unauthorized_client"

    shown = admin(local_stack, "resources", "show", RESOURCE, "--json")
    assert json.loads(shown.stdout)["tenants"] == ["demo"]
    assert rs[1] not in shown.stdout
    listed = json.loads(admin(local_stack, "resources", "list", "--json").stdout)
    assert {r["resource"]: r["builtin"] for r in listed if r["resource"] in (RESOURCE, listed[0]["resource"])} == {
        RESOURCE: False, f"{local_stack.base_url}/charges": True}
    assert listed[0] == {"resource": f"{local_stack.base_url}/charges", "builtin": True, "created_at": 0,
                         "scopes": ["charges:read", "charges:write", "charges:refund"], "tenants": [],
                         "introspection_client_id": None}
    builtin = admin(local_stack, "resources", "create", f"{local_stack.base_url}/charges", "--scopes", "x")
    assert (builtin.returncode, builtin.stderr.splitlines()[-1]) == (
        2, f"authgate resources: {local_stack.base_url}/charges is the charges API, built in: it needs no registration")

    updated = admin(local_stack, "resources", "update", RESOURCE, "--tenants", "acme", "--json")
    assert updated.returncode == 0, updated.stderr
    assert json.loads(updated.stdout)["tenants"] == ["acme"]

    deleted = admin(local_stack, "resources", "delete", RESOURCE)
    assert deleted.returncode == 0, deleted.stderr
    assert admin(local_stack, "resources", "show", RESOURCE).returncode == 1
    # The introspection client went with it.
    gone = requests.post(f"{local_stack.base_url}/oauth/introspect", data={"token": token}, auth=rs, timeout=10)
    assert (gone.status_code, gone.json()["error"]) == (401, "invalid_client")


@pytest.mark.parametrize("args, line", [
    (["create", "ftp://example.com/api", "--scopes", "a"],
     ("authgate resources: resource 'ftp://example.com/api' must be https (http only on 127.0.0.1 or localhost, "
     "for the local stack)")),
    (["create", "https://api.example.com/x#frag", "--scopes", "a"],
     ("authgate resources: resource 'https://api.example.com/x#frag' is not an absolute URI in printable ASCII "
     "without a fragment (RFC 8707 2)")),
    (["create", "https://api.example.com/x", "--scopes", "a  b"],
     "authgate resources: --scopes 'a  b' must be scope tokens separated by single spaces (RFC 6749 3.3)"),
    (["update", "https://api.example.com/x"], "authgate resources: update needs --scopes or --tenants"),
])
def test_bad_input_is_one_line(local_stack: LocalStack, args: list[str], line: str) -> None:
    one_line_refusal(admin(local_stack, "resources", *args), line)
