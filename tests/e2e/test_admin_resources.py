"""`authgate resources ...` against the running `authgate serve`: a registered resource gets tokens with its
`aud`, its introspection credentials see exactly its tokens, and deleting it stops both."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
import requests

from tests.demo import CHALLENGE, SECRETS, WEB_REDIRECT
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

    # Least privilege (RFC 6749 4.4, RFC 9700 2.3): a new resource is open to no client_credentials
    # client until an administrator grants it scopes of it.
    refused = cc_token(local_stack.base_url, resource=RESOURCE, scope="mcp:read")
    assert (refused.status_code, refused.json()) == (400, {
        "error": "invalid_scope", "error_description": "The scope 'mcp:read' is not allowed for this client.",
        "error_uri": f"{local_stack.base_url}/problems/invalid_scope"})
    granted = admin(local_stack, "clients", "update", "demo-service", "--resource-scopes", f"{RESOURCE}=mcp:read",
                    "--json")
    assert granted.returncode == 0, granted.stderr
    # The shared stack: other tests may have granted demo-service scopes of their own resources.
    assert json.loads(granted.stdout)["resource_scopes"][RESOURCE] == ["mcp:read"]
    assert cc_token(local_stack.base_url, resource=RESOURCE, scope="mcp:write").json()["error"] == "invalid_scope"

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
                         "introspection_client_id": None, "name": "Charges API", "may_delegate_to": [],
                         "authorization_details_types": {},
                         "description": "Your organisation's charges, refunds and invoices.",
                         "scope_descriptions": {"charges:read": "See your charges", "charges:refund": "Refund charges",
                                                "charges:write": "Create charges"}}
    builtin = admin(local_stack, "resources", "create", f"{local_stack.base_url}/charges", "--scopes", "x")
    assert (builtin.returncode, builtin.stderr.splitlines()[-1]) == (
        2, f"authgate resources: {local_stack.base_url}/charges is the charges API, built in: it needs no registration")

    updated = admin(local_stack, "resources", "update", RESOURCE, "--tenants", "acme", "--json")
    assert updated.returncode == 0, updated.stderr
    assert json.loads(updated.stdout)["tenants"] == ["acme"]

    withdrawn = admin(local_stack, "clients", "update", "demo-service", "--resource-scopes", f"{RESOURCE}=")
    assert withdrawn.returncode == 0, withdrawn.stderr
    # The shared stack: other tests' grants to demo-service may remain (test_resource_server_doc's); this one is gone.
    grants = withdrawn.stdout.rsplit(", resource grants ", 1)[1]
    assert withdrawn.stdout.startswith("client_id: demo-service updated (") and f"{RESOURCE}=" not in grants

    deleted = admin(local_stack, "resources", "delete", RESOURCE)
    assert deleted.returncode == 0, deleted.stderr
    gone = admin(local_stack, "resources", "show", RESOURCE)
    assert (gone.returncode, gone.stderr.splitlines()[-1]) == (
        2, f"authgate resources: no resource '{RESOURCE}' (see `authgate resources list`)")
    # The introspection client went with it.
    gone = requests.post(f"{local_stack.base_url}/oauth/introspect", data={"token": token}, auth=rs, timeout=10)
    assert (gone.status_code, gone.json()["error"]) == (401, "invalid_client")


def test_the_consent_page_names_the_resource_as_registered(local_stack: LocalStack) -> None:
    """Issue 26 item 6: the API the token is for, its description, each scope once with its text; all escaped."""
    files = "http://127.0.0.1:9/e2e-files"
    created = admin(local_stack, "resources", "create", files, "--scopes", "files:read files:write",
                    "--name", "Team <b>Files</b>", "--description", "Documents & drafts of your team.",
                    "--scope-description", "files:read=Read your <i>files</i>")
    assert created.returncode == 0, created.stderr
    shown = json.loads(admin(local_stack, "resources", "show", files, "--json").stdout)
    assert (shown["name"], shown["description"], shown["scope_descriptions"]) == (
        "Team <b>Files</b>", "Documents & drafts of your team.", {"files:read": "Read your <i>files</i>"})
    query = {"response_type": "code", "client_id": "demo-web", "redirect_uri": WEB_REDIRECT, "state": "s",
             "scope": "files:read files:write", "resource": files, "code_challenge": CHALLENGE,
             "code_challenge_method": "S256"}
    page = requests.get(f"{local_stack.base_url}/oauth/authorize", params=query, headers={"Accept": "text/html"},
                        allow_redirects=False, timeout=10)
    assert (page.status_code, page.headers["Content-Type"]) == (200, "text/html; charset=utf-8")
    assert ('is asking for access to <strong>Demo Inc.</strong> in <strong class="resource">Team &lt;b&gt;Files'
            '&lt;/b&gt;</strong>:</p>\n<p class="resource-about">Documents &amp; drafts of your team. '
            f'<code>{files}</code></p>\n<ul class="scopes">\n<li>Read your &lt;i&gt;files&lt;/i&gt; '
            '<code>files:read</code></li>\n<li><code>files:write</code></li>\n</ul>') in page.text

    renamed = admin(local_stack, "resources", "update", files, "--name", "", "--scope-description", "files:read=")
    assert renamed.returncode == 0, renamed.stderr
    assert renamed.stdout.splitlines()[1].split()[:2] == [files, "-"]
    admin(local_stack, "resources", "delete", files)


def test_a_resource_declares_its_own_authorization_details_type(local_stack: LocalStack, tmp_path: Any) -> None:
    """RFC 9396 2: `--authorization-details-type NAME --schema FILE` stores a valid Draft 2020-12 schema, refuses an
    invalid one in one line, and `--remove-authorization-details-type` withdraws it."""
    files = "http://127.0.0.1:9/e2e-rar-files"
    assert admin(local_stack, "resources", "create", files, "--scopes", "files:read").returncode == 0
    schema = {"type": "object", "required": ["folder"], "properties": {"folder": {"type": "string"}}}
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(schema))
    bad.write_text(json.dumps({"type": "objekt"}))
    declared = admin(local_stack, "resources", "update", files, "--authorization-details-type", "file_access",
                     "--schema", str(good), "--json")
    assert declared.returncode == 0, declared.stderr
    assert json.loads(declared.stdout)["authorization_details_types"] == {
        "file_access": json.dumps(schema, separators=(",", ":"), sort_keys=True)}
    one_line_refusal(admin(local_stack, "resources", "update", files, "--authorization-details-type", "file_access",
                           "--schema", str(bad)),
                     f"authgate resources: --schema {str(bad)!r}: The schema is not a valid Draft 2020-12 schema: "
                     "'objekt' is not valid under any of the given schemas")
    removed = admin(local_stack, "resources", "update", files, "--remove-authorization-details-type", "file_access",
                    "--json")
    assert json.loads(removed.stdout)["authorization_details_types"] == {}
    admin(local_stack, "resources", "delete", files)


@pytest.mark.parametrize("args, line", [
    (["create", "ftp://example.com/api", "--scopes", "a"],
     ("authgate resources: resource 'ftp://example.com/api' must be https (http only on 127.0.0.1 or localhost, "
     "for the local stack)")),
    (["create", "https://api.example.com/x#frag", "--scopes", "a"],
     ("authgate resources: resource 'https://api.example.com/x#frag' is not an absolute URI in printable ASCII "
     "without a fragment (RFC 8707 2)")),
    (["create", "https://api.example.com/x", "--scopes", "a  b"],
     "authgate resources: --scopes 'a  b' must be scope tokens separated by single spaces (RFC 6749 3.3)"),
    (["update", "https://api.example.com/x"],
     ("authgate resources: update needs --scopes, --tenants, --name, --description, --scope-description, "
      "--may-delegate-to, --authorization-details-type or --remove-authorization-details-type "
      "(see `authgate resources update --help`)")),
    (["update", "https://api.example.com/x", "--authorization-details-type", "file_access"],
     "authgate resources: --authorization-details-type and --schema go together"),
    (["update", "https://api.example.com/x", "--authorization-details-type", "charge", "--schema", "/dev/null"],
     "authgate resources: 'charge' is the charges API's own type; name this resource's type otherwise"),
    (["update", "https://api.example.com/x", "--authorization-details-type", "a b", "--schema", "/dev/null"],
     "authgate resources: authorization details type 'a b' must be 1-128 visible characters without spaces"),
    (["update", "https://api.example.com/x", "--authorization-details-type", "t", "--schema", "/nonexistent.json"],
     "authgate resources: --schema '/nonexistent.json': No such file or directory"),
    (["update", "https://api.example.com/x", "--may-delegate-to", "ftp://example.com/api"],
     ("authgate resources: resource 'ftp://example.com/api' must be https (http only on 127.0.0.1 or localhost, "
      "for the local stack)")),
    (["create", "https://api.example.com/x", "--scopes", "a", "--scope-description", "b=Bee"],
     "authgate resources: --scope-description 'b=Bee' must be SCOPE=TEXT for one of the resource's scopes (a)"),
])
def test_bad_input_is_one_line(local_stack: LocalStack, args: list[str], line: str) -> None:
    one_line_refusal(admin(local_stack, "resources", *args), line)
