"""`authgate clients ...` against the running `authgate serve`: a new secret works at once; a rotated one fails at once."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.e2e.admin_commands import admin, one_line_refusal
from tests.e2e.conftest import REPO_ROOT, LocalStack, authgate_command

pytestmark = pytest.mark.e2e


def token(base_url: str, client_id: str, secret: str) -> requests.Response:
    return requests.post(f"{base_url}/oauth/token", data={"grant_type": "client_credentials"},
                         auth=(client_id, secret), timeout=10)


def test_create_rotate_list_against_the_local_stack(local_stack: LocalStack) -> None:
    created = admin(local_stack, "clients", "create", "--client-id", "e2e-cli", "--tenant", "demo",
                    "--grant", "client_credentials", "--scope", "charges:read", "--json")
    assert created.returncode == 0, created.stderr
    secret = json.loads(created.stdout)["client_secret"]
    assert token(local_stack.base_url, "e2e-cli", secret).status_code == 200

    rotated = admin(local_stack, "clients", "rotate-secret", "e2e-cli", "--json")
    assert rotated.returncode == 0, rotated.stderr
    new_secret = json.loads(rotated.stdout)["client_secret"]
    old = token(local_stack.base_url, "e2e-cli", secret)
    assert (old.status_code, old.headers["WWW-Authenticate"], old.json()["error"]) == (
        401, 'Basic realm="oauth"', "invalid_client")
    assert token(local_stack.base_url, "e2e-cli", new_secret).status_code == 200

    listed = admin(local_stack, "clients", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    ids = {c["client_id"] for c in json.loads(listed.stdout)}
    assert {"e2e-cli", "demo-web", "staging-web"} <= ids
    assert new_secret not in listed.stdout


def test_show_and_rename_a_client_against_the_local_stack(local_stack: LocalStack) -> None:
    created = admin(local_stack, "clients", "create", "--client-id", "e2e-named", "--tenant", "demo",
                    "--name", "Reports", "--grant", "client_credentials", "--scope", "charges:read", "--json")
    assert created.returncode == 0, created.stderr
    secret = json.loads(created.stdout)["client_secret"]
    renamed = admin(local_stack, "clients", "update", "e2e-named", "--name", "Monthly reports")
    assert (renamed.returncode, renamed.stdout) == (0, ("client_id: e2e-named updated (auth client_secret_basic, "
                                                       "profile none, 0 keys, PAR optional, resource grants none)\n"))
    shown = admin(local_stack, "clients", "show", "e2e-named", "--json")
    assert shown.returncode == 0, shown.stderr
    view = json.loads(shown.stdout)
    assert (view["client_id"], view["name"], view["tenant_id"]) == ("e2e-named", "Monthly reports", "demo")
    assert secret not in shown.stdout and "secret_hash" not in shown.stdout
    text = admin(local_stack, "clients", "show", "e2e-named")
    assert "name:                                  Monthly reports" in text.stdout.splitlines()
    missing = admin(local_stack, "clients", "show", "e2e-nobody")
    assert (missing.returncode, missing.stdout, missing.stderr.splitlines()) == (
        2, "", [f"target: local stack {local_stack.base_url} (stage local)",
                "authgate clients: no client 'e2e-nobody' (see `authgate clients list`)"])
    assert admin(local_stack, "clients", "list").returncode == 0


def test_users_create_against_the_local_stack(local_stack: LocalStack) -> None:
    done = admin(local_stack, "users", "create", "--tenant", "demo", "--username", "e2e-user", "--password-stdin",
                 stdin="e2e-user-password\n")
    assert done.returncode == 0, done.stderr
    assert "e2e-user created" in done.stdout


# ------------------------------------------------------------------ input the CLI refuses

def test_a_client_for_a_tenant_that_does_not_exist_is_refused(local_stack: LocalStack) -> None:
    done = admin(local_stack, "clients", "create", "--client-id", "orphan-cli", "--tenant", "no-such-tenant",
                 "--grant", "client_credentials", "--scope", "charges:read")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"target: local stack {local_stack.base_url} (stage local)",
        "authgate clients: tenant 'no-such-tenant' does not exist here (see `authgate tenants list`)"]
    listed = admin(local_stack, "clients", "list", "--json")
    assert "orphan-cli" not in {c["client_id"] for c in json.loads(listed.stdout)}


@pytest.mark.parametrize("args, line", [
    (["--grant", "authorization_code"],
     ("authgate clients: the authorization_code grant needs at least one --redirect-uri (the code is sent back "
     "there, RFC 6749 3.1.2.2)")),
    (["--client-id", "bad\x1b[31mid", "--grant", "client_credentials"],
     "authgate clients: --client-id 'bad\\x1b[31mid' must be printable ASCII without spaces or control characters"),
    (["--name", "two\nlines", "--grant", "client_credentials"],
     "authgate clients: --name 'two\\nlines' contains the control character U+000A"),
    (["--grant", "authorization_code", "--redirect-uri", "https://app.example/cb#x"],
     ("authgate clients: redirect URI 'https://app.example/cb#x' is not an absolute URI in printable ASCII "
     "without a fragment or a backslash (RFC 6749 3.1.2); it must be exactly what the application will send")),
    (["--grant", "authorization_code", "--redirect-uri", "http://evil.example\\@127.0.0.1/cb"],
     ("authgate clients: redirect URI 'http://evil.example\\\\@127.0.0.1/cb' is not an absolute URI in printable "
     "ASCII without a fragment or a backslash (RFC 6749 3.1.2); it must be exactly what the application will "
     "send")),
    (["--type", "public", "--grant", "client_credentials"],
     "authgate clients: a public client cannot use client_credentials: it has no secret (RFC 6749 4.4)"),
    (["--grant", "authorization_code", "--redirect-uri", "http://app.example/cb"],
     ("authgate clients: redirect URI 'http://app.example/cb' must be https (plain http only on a loopback "
      "address such as http://127.0.0.1:PORT/..., RFC 8252 7.3) or a native app's private-use scheme such as "
      "com.example.app:/callback (RFC 8252 7.1): a code sent over plain http to another host can be read on the "
      "way (RFC 9700 2.1, 4.1)")),
], ids=["code-without-redirect-uri", "control-in-id", "newline-in-name", "fragment", "backslash", "public-cc", "plain-http"])
def test_bad_client_arguments_are_one_line_and_exit_2_before_any_stack(tmp_path: Path, args: list[str],
                                                                     line: str) -> None:
    """Checked before the stack is looked up: the same answer with no stack running at all."""
    env = {**os.environ, "AUTHGATE_STATE_DIR": str(tmp_path)}
    env.pop("AUTHGATE_URL", None)
    done = subprocess.run([*authgate_command(), "clients", "create", "--tenant", "demo", *args], cwd=REPO_ROOT,
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    one_line_refusal(done, line)


def test_users_create_without_a_terminal_asks_for_password_stdin(local_stack: LocalStack) -> None:
    done = subprocess.run([*authgate_command(), "users", "create", "--tenant", "demo", "--username", "no-tty"],
                          cwd=REPO_ROOT, env=local_stack.env(), stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=60, check=False)
    one_line_refusal(done, "authgate users: no terminal to ask for the password on: pipe it in with "
                           "--password-stdin")


@pytest.mark.parametrize("args, stdin, line", [
    (["--tenant", "no-such-tenant", "--username", "bob"], "bob-password\n",
     "authgate users: tenant 'no-such-tenant' does not exist here (see `authgate tenants list`)"),
    (["--tenant", "demo", "--username", "bob\x07"], "bob-password\n",
     "authgate users: --username 'bob\\x07' contains the control character U+0007"),
    (["--tenant", "demo", "--username", "bob"], "",
     "authgate users: the password must have at least 8 characters"),
], ids=["unknown-tenant", "control-in-username", "no-password"])
def test_bad_user_arguments_are_one_line_and_exit_2(local_stack: LocalStack, args: list[str], stdin: str,
                                                    line: str) -> None:
    done = admin(local_stack, "users", "create", *args, "--password-stdin", stdin=stdin)
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1] == line
    assert len(done.stderr.splitlines()) <= 2  # at most the "target:" line before it


# ------------------------------------------------------------------ metadata-document clients

def test_an_administrator_deletes_a_cached_document_then_pre_registers_its_url(mcp: Any) -> None:
    """`clients delete https://...` forgets a cached Client ID Metadata Document (the next request
    fetches it again); `clients create --client-id https://...` then pins the URL as an ordinary
    client, which wins over the document (draft-ietf-oauth-client-id-metadata-document-02 7.2)."""
    from tests.e2e.flows import pkce_pair
    from tests.e2e.mcp_clients import CLIENT_NAME, REDIRECT_URI

    stack, documents = mcp.stack, mcp.documents
    url = documents.document("/admin/pinned.json", client_name=CLIENT_NAME, redirect_uris=[REDIRECT_URI])
    pinned = "http://127.0.0.1:9/pinned"

    def authorize(redirect_uri: str) -> requests.Response:
        _verifier, challenge = pkce_pair()
        return requests.get(f"{stack.base_url}/oauth/authorize", allow_redirects=False, timeout=30, params={
            "response_type": "code", "client_id": url, "redirect_uri": redirect_uri, "scope": "mcp:read",
            "state": "s", "code_challenge": challenge, "code_challenge_method": "S256", "resource": mcp.server.resource})

    def fetches() -> int:
        return sum(path == "/admin/pinned.json" for path, _host in documents.requests)

    target = f"target: local stack {stack.base_url} (stage local)\n"
    assert authorize(REDIRECT_URI).status_code == 200 and fetches() == 1
    deleted = admin(stack, "clients", "delete", url, "--url", stack.base_url)
    assert (deleted.returncode, deleted.stderr, deleted.stdout) == (0, target, (
        f"client_id: {url} deleted (a cached Client ID Metadata Document: the next request naming it fetches it "
        "again, unless a client is created under this id)\n"))
    assert authorize(REDIRECT_URI).status_code == 200 and fetches() == 2  # fetched again

    created = admin(stack, "clients", "create", "--client-id", url, "--tenant", "demo", "--type", "public",
                    "--grant", "authorization_code", "--redirect-uri", pinned, "--scope", "mcp:read",
                    "--name", "Pinned agent", "--url", stack.base_url)
    assert (created.returncode, created.stderr, created.stdout) == (0, target, f"client_id:     {url}\n")
    page = authorize(pinned)
    assert page.status_code == 200 and "Pinned agent" in page.text  # the administrator's record
    refused = authorize(REDIRECT_URI)  # the document's redirect URI is no longer this client's
    assert refused.status_code == 400 and "redirect_uri_mismatch" in refused.text
    assert fetches() == 2  # never fetched over

    again = admin(stack, "clients", "delete", url, "--json", "--url", stack.base_url)
    assert (again.returncode, json.loads(again.stdout)) == (0, {"client_id": url, "deleted": True,
                                                                "source": "administrator"})


PASSWORD_OFF = ("authgate clients: the password grant is off on this stack (its token endpoint answers "
                "unsupported_grant_type): deploy with PasswordGrantEnabled=true, or start `authgate serve` with "
                "AUTHGATE_PASSWORD_GRANT=true, before registering a client for it")


def password_client(stack: LocalStack, client_id: str) -> subprocess.CompletedProcess[str]:
    return admin(stack, "clients", "create", "--client-id", client_id, "--tenant", "demo", "--grant", "password",
                 "--scope", "charges:read", "--json")


def test_a_password_client_is_refused_while_the_stack_refuses_the_grant(local_stack: LocalStack) -> None:
    """The local stack records what its handlers see (AUTHGATE_PASSWORD_GRANT, off by default)."""
    assert json.loads(local_stack.state_file.read_text())["env"]["AUTHGATE_PASSWORD_GRANT"] == "false"
    done = password_client(local_stack, "pw-refused")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [f"target: local stack {local_stack.base_url} (stage local)", PASSWORD_OFF]
    refused = requests.post(f"{local_stack.base_url}/oauth/token", timeout=10, auth=("demo-service", "demo-service-secret"),
                            data={"grant_type": "password", "username": "alice", "password": "alice-password"})
    assert (refused.status_code, refused.json()["error"]) == (400, "unsupported_grant_type")


def test_a_stack_serving_the_password_grant_registers_a_client_that_uses_it(tmp_path: Path) -> None:
    from tests.e2e.conftest import running_stack

    with running_stack(tmp_path, env_extra={"AUTHGATE_PASSWORD_GRANT": "true"}) as stack:
        assert json.loads(stack.state_file.read_text())["env"]["AUTHGATE_PASSWORD_GRANT"] == "true"
        done = password_client(stack, "pw-served")
        assert done.returncode == 0, done.stderr
        secret = json.loads(done.stdout)["client_secret"]
        issued = requests.post(f"{stack.base_url}/oauth/token", timeout=10, auth=("pw-served", secret),
                               data={"grant_type": "password", "username": "alice", "password": "alice-password",
                                     "scope": "charges:read"})
    assert issued.status_code == 200, issued.text
    assert (issued.json()["token_type"], issued.json()["scope"]) == ("Bearer", "charges:read")
