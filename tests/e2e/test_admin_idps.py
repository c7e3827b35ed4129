"""`authgate idps ...` against the running `authgate serve`: a tenant's trusted identity providers, created,
listed, shown, updated and deleted; bad input is one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.admin_commands import admin, one_line_refusal
from tests.e2e.conftest import LocalStack
from tests.idp_support import TestIdp

pytestmark = pytest.mark.e2e

ISSUER = "https://e2e-idp.example"


def test_create_list_show_update_delete(local_stack: LocalStack, tmp_path: Path) -> None:
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps(TestIdp(ISSUER).jwks()))
    created = admin(local_stack, "idps", "create", "--tenant", "demo", "--issuer", ISSUER, "--jwks-file", str(jwks),
                    "--user-match", "email", "--json")
    assert created.returncode == 0, created.stderr
    view = json.loads(created.stdout)
    assert {k: view[k] for k in ("tenant_id", "issuer", "jwks_uri", "user_match", "create_users")} == {
        "tenant_id": "demo", "issuer": ISSUER, "jwks_uri": None, "user_match": "email", "create_users": False}
    assert view["jwks"]["keys"][0]["kid"] == "idp-key-1"
    again = admin(local_stack, "idps", "create", "--tenant", "demo", "--issuer", ISSUER, "--jwks-file", str(jwks))
    assert (again.returncode, again.stderr.splitlines()[-1]) == (
        1, f"authgate idps: tenant 'demo' already trusts '{ISSUER}' (use `authgate idps update`)")

    listed = admin(local_stack, "idps", "list", "--tenant", "demo")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[0].split() == ["TENANT", "ISSUER", "KEYS", "USER", "MATCH", "CREATE", "USERS"]
    assert ["demo", ISSUER, "1", "key", "inline", "email", "no"] in [line.split() for line in listed.stdout.splitlines()]

    updated = admin(local_stack, "idps", "update", "--tenant", "demo", "--issuer", ISSUER, "--jwks-uri",
                    "https://e2e-idp.example/keys", "--create-users", "--json")
    assert updated.returncode == 0, updated.stderr
    assert {k: json.loads(updated.stdout)[k] for k in ("jwks_uri", "jwks", "create_users")} == {
        "jwks_uri": "https://e2e-idp.example/keys", "jwks": None, "create_users": True}
    shown = admin(local_stack, "idps", "show", "--tenant", "demo", "--issuer", ISSUER, "--json")
    assert json.loads(shown.stdout) == json.loads(updated.stdout)

    assert admin(local_stack, "idps", "delete", "--tenant", "demo", "--issuer", ISSUER).returncode == 0
    gone = admin(local_stack, "idps", "show", "--tenant", "demo", "--issuer", ISSUER)
    assert (gone.returncode, gone.stderr.splitlines()[-1]) == (
        2, (f"authgate idps: tenant 'demo' trusts no identity provider '{ISSUER}' "
           "(see `authgate idps list --tenant demo`)"))


@pytest.mark.parametrize("args, line", [
    (["create", "--tenant", "demo", "--issuer", "http://idp.example", "--jwks-uri", "https://idp.example/k"],
     ("authgate idps: --issuer 'http://idp.example' must be an https URL without query, fragment or user "
      "information (RFC 8414 2)")),
    (["create", "--tenant", "demo", "--issuer", ISSUER],
     "authgate idps: create needs --jwks-uri URL or --jwks-file FILE (the IdP's signing keys)"),
    (["create", "--tenant", "demo", "--issuer", ISSUER, "--jwks-uri", "http://idp.example/keys"],
     "authgate idps: --jwks-uri 'http://idp.example/keys': it must start with https://"),
    (["create", "--tenant", "nowhere", "--issuer", ISSUER, "--jwks-uri", "https://idp.example/keys"],
     "authgate idps: tenant 'nowhere' does not exist here (see `authgate tenants list`)"),
    (["update", "--tenant", "demo", "--issuer", ISSUER],
     ("authgate idps: update needs --jwks-uri, --jwks-file, --user-match or --create-users/--no-create-users "
      "(see `authgate idps update --help`)")),
])
def test_bad_input_is_one_line(local_stack: LocalStack, args: list[str], line: str) -> None:
    done = admin(local_stack, "idps", *args)
    if "nowhere" in args:
        # Checked once the stack is known: the target line comes first.
        assert (done.returncode, done.stdout, done.stderr.splitlines()[-1]) == (2, "", line)
    else:
        one_line_refusal(done, line)
