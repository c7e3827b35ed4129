"""`authgate idps ...` against the running `authgate serve`: a tenant's trusted identity providers, created,
listed, shown, updated and deleted; bad input is one line and exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.admin_commands import admin, one_line_refusal
from tests.e2e.conftest import REPO_ROOT, LocalStack
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
    assert listed.stdout.splitlines()[0].split() == ["TENANT", "ID", "ISSUER", "PROTOCOL", "SIGN-IN", "DOMAINS", "KEYS",
                                                     "CREATE", "USERS"]
    assert ["demo", "-", ISSUER, "id-jag", "no", "-", "1", "key", "inline", "no"] in [
        line.split() for line in listed.stdout.splitlines()]

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
     ("authgate idps: update needs --protocol, --id, --label, --domain, --no-domains, --client-id, "
      "--client-secret-file, --scopes, --apple-team-id, --apple-key-id, --apple-private-key-file, --metadata-url, "
      "--metadata-file, --jwks-uri, --jwks-file, --user-match, --create-users/--no-create-users, "
      "--trust-email/--no-trust-email, "
      "--trust-mfa/--no-trust-mfa, --step-up or --claim (see `authgate idps update --help`)")),
    (["create", "--tenant", "demo", "--issuer", ISSUER, "--protocol", "oidc", "--client-id", "authgate"],
     "authgate idps: --protocol oidc needs --client-secret-file FILE (the client secret the IdP issued)"),
])
def test_bad_input_is_one_line(local_stack: LocalStack, args: list[str], line: str) -> None:
    done = admin(local_stack, "idps", *args)
    if "nowhere" in args:
        # Checked once the stack is known: the target line comes first.
        assert (done.returncode, done.stdout, done.stderr.splitlines()[-1]) == (2, "", line)
    else:
        one_line_refusal(done, line)


def test_a_sign_in_idp_with_its_secret_from_a_file_never_printed(local_stack: LocalStack, tmp_path: Path) -> None:
    secret = tmp_path / "client-secret"
    secret.write_text("e2e-upstream-client-secret\n")
    created = admin(local_stack, "idps", "create", "--tenant", "demo", "--issuer", "https://sso.e2e.example",
                    "--protocol", "oidc", "--client-id", "authgate", "--client-secret-file", str(secret),
                    "--label", "E2E SSO", "--domain", "e2e.example")
    assert created.returncode == 0, created.stderr
    shown = admin(local_stack, "idps", "show", "--tenant", "demo", "--issuer", "https://sso.e2e.example")
    lines = dict(line.split(":", 1) for line in shown.stdout.splitlines())
    assert {k: lines[k].strip() for k in ("idp_id", "protocol", "sign_in", "client_secret_set", "redirect_uri")} == {
        "idp_id": "e2e-sso", "protocol": "oidc", "sign_in": "yes", "client_secret_set": "yes",
        "redirect_uri": f"{local_stack.base_url}/oauth/federation/callback"}
    for done in (created, shown):
        assert "e2e-upstream-client-secret" not in done.stdout + done.stderr
    # Sealed under the stack's own sealing key (the server shares it through its Secrets Manager), so the stack
    # opens it: read back as any process aimed at the stack reads it.
    probe = subprocess.run([sys.executable, "-c", OPEN_SECRET], cwd=REPO_ROOT, env=local_stack.env(), check=False,
                           capture_output=True, text=True, timeout=60)
    assert (probe.returncode, probe.stdout) == (0, "e2e-upstream-client-secret\n"), probe.stderr


OPEN_SECRET = """
import argparse
from authgate_cli.admin import target
target.use(argparse.Namespace(url=None, stack_name=None, region=None))
from authgate.federation import secrets
from authgate.stores.identity_providers import IdentityProviderStore
print(secrets.unseal(IdentityProviderStore().get("demo", "https://sso.e2e.example"), "client_secret"))
"""
