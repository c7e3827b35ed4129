"""`authgate clients ...` against the running `authgate serve`: a new secret works at once; a rotated one fails at once."""

from __future__ import annotations

import json
import subprocess

import pytest
import requests

from tests.e2e.conftest import REPO_ROOT, LocalStack, authgate_command

pytestmark = pytest.mark.e2e


def admin(stack: LocalStack, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*authgate_command(), *args], cwd=REPO_ROOT, env=stack.env(), input=stdin, check=False,
                          capture_output=True, text=True, timeout=60)


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


def test_users_create_against_the_local_stack(local_stack: LocalStack) -> None:
    done = admin(local_stack, "users", "create", "--tenant", "demo", "--username", "e2e-user", "--password-stdin",
                 stdin="e2e-user-password\n")
    assert done.returncode == 0, done.stderr
    assert "e2e-user created" in done.stdout
