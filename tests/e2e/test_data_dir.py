"""`authgate serve --data DIR` keeps the local stack across restarts (and one stack per DIR).

Real restarts of real servers: what one server created (a client through the admin CLI, a user,
a refresh token, a charge, the signing keys) works on the next server over the same DIR.
"""

from __future__ import annotations

import json
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest
import requests

from tests.e2e.conftest import REPO_ROOT, LocalStack, authgate_command, start_stack, stop_stack
from tests.e2e.flows import Flows

pytestmark = pytest.mark.e2e


def admin(stack: LocalStack, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*authgate_command(), *args], cwd=REPO_ROOT, env=stack.env(), input=stdin, check=False,
                          capture_output=True, text=True, timeout=60)


def data_line(stack: LocalStack) -> str:
    return next(line for line in stack.log(200).splitlines() if line.startswith("Data: "))


def test_a_restart_over_the_same_data_dir_keeps_clients_users_tokens_keys_and_charges(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = start_stack(tmp_path / "one", "--data", str(data))
    try:
        assert data_line(first) == f"Data: {data} (new: the seed was loaded; kept across restarts)"
        created = admin(first, "clients", "create", "--client-id", "kept-client", "--tenant", "demo",
                        "--grant", "client_credentials", "--scope", "charges:read", "--scope", "charges:write",
                        "--json")
        assert created.returncode == 0, created.stderr
        secret = json.loads(created.stdout)["client_secret"]
        assert admin(first, "users", "create", "--tenant", "demo", "--username", "kept-user", "--password-stdin",
                     stdin="kept-user-password\n").returncode == 0
        flows = Flows(first.base_url)
        code, verifier = flows.authorize()
        refresh_token = flows.exchange(code, verifier).json()["refresh_token"]
        access = flows.client_credentials("kept-client", secret).json()["access_token"]
        charge = flows.create_charge(access, key="kept-charge").json()
        kids = {k["kid"] for k in requests.get(f"{first.base_url}/.well-known/jwks.json", timeout=10).json()["keys"]}
        flows.close()
    finally:
        assert stop_stack(first) == 0
    snapshot = data / "snapshot.json"
    assert stat.S_IMODE(snapshot.stat().st_mode) == 0o600  # password hashes and private keys
    assert "kept-user-password" not in snapshot.read_text() and secret not in snapshot.read_text()

    second = start_stack(tmp_path / "two", "--data", str(data))
    try:
        assert data_line(second).startswith(f"Data: {data} (restored ")
        assert data_line(second).endswith("the seed was not loaded again)")
        flows = Flows(second.base_url)
        token = flows.client_credentials("kept-client", secret)
        assert token.status_code == 200, token.text
        assert flows.get_charge(token.json()["access_token"], charge["id"]).json() == charge
        refreshed = flows.refresh(refresh_token)
        assert refreshed.status_code == 200, refreshed.text
        assert flows.authorize(username="kept-user", password="kept-user-password")[0]
        jwks = requests.get(f"{second.base_url}/.well-known/jwks.json", timeout=10).json()["keys"]
        assert {k["kid"] for k in jwks} == kids, "the same keys, so tokens of the first server verify"
        flows.close()
    finally:
        assert stop_stack(second) == 0


def test_a_killed_server_keeps_what_it_wrote_a_second_before(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = start_stack(tmp_path / "one", "--data", str(data))
    try:
        created = admin(first, "clients", "create", "--client-id", "survivor", "--tenant", "demo",
                        "--grant", "client_credentials", "--scope", "charges:read", "--json")
        assert created.returncode == 0, created.stderr
        time.sleep(2.5)  # the snapshot follows a write within a second
    finally:
        first.process.send_signal(signal.SIGKILL)
        first.process.wait(timeout=10)
    second = start_stack(tmp_path / "two", "--data", str(data))
    try:
        listed = admin(second, "clients", "list", "--json")
        assert "survivor" in {c["client_id"] for c in json.loads(listed.stdout)}
    finally:
        stop_stack(second)


def test_one_data_dir_serves_one_stack_at_a_time(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = start_stack(tmp_path / "one", "--data", str(data))
    try:
        done = subprocess.run([*authgate_command(), "serve", "--port", "0", "--callback-port", "off",
                               "--data", str(data)], cwd=REPO_ROOT, env=first.env(), capture_output=True,
                              text=True, timeout=60, check=False)
        assert (done.returncode, done.stderr) == (
            2, f"authgate serve: --data {data}: {data} is in use by another authgate serve\n")
    finally:
        stop_stack(first)


def test_data_and_an_external_dynamodb_are_exclusive(tmp_path: Path) -> None:
    done = subprocess.run([*authgate_command(), "serve", "--port", "0", "--callback-port", "off", "--data",
                           str(tmp_path), "--dynamodb-endpoint", "http://127.0.0.1:9"], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr == ("authgate serve: --data keeps the embedded AWS's data; an external --dynamodb-endpoint "
                           "keeps its own: give one of them\n")
