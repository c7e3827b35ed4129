"""Two `authgate serve` on two ports share a state directory and never disturb each other.

Admin commands run as real subprocesses: without --url they refuse to guess; with --url each
acts on its own server's data and says which URL it acts on; stopping one leaves the other's
record alone; a server killed without cleaning up is detected and its record removed.
"""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.e2e.conftest import REPO_ROOT, LocalStack, authgate_command, start_stack, stop_stack

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalStack, LocalStack, Path]]:
    root = tmp_path_factory.mktemp("two-servers")
    shared = root / "state"
    first = start_stack(root / "a", state_dir=shared)
    try:
        second = start_stack(root / "b", state_dir=shared)
    except BaseException:
        stop_stack(first)
        raise
    try:
        yield first, second, shared
    finally:
        stop_stack(second)
        stop_stack(first)


def admin(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*authgate_command(), *args], cwd=REPO_ROOT, env=env, check=False,
                          capture_output=True, text=True, timeout=60)


def client_ids(stack: LocalStack) -> set[str]:
    listed = admin(stack.env(), "clients", "list", "--json", "--url", stack.base_url)
    assert listed.returncode == 0, listed.stderr
    return {c["client_id"] for c in json.loads(listed.stdout)}


def test_each_server_has_its_own_record(pair: tuple[LocalStack, LocalStack, Path]) -> None:
    first, second, shared = pair
    records = sorted(p.name for p in (shared / "servers").glob("*.json"))
    assert records == sorted([first.state_file.name, second.state_file.name])
    assert json.loads(first.state_file.read_text())["base_url"] == first.base_url
    assert json.loads(second.state_file.read_text())["base_url"] == second.base_url


def test_without_url_an_admin_command_refuses_to_guess(pair: tuple[LocalStack, LocalStack, Path]) -> None:
    first, second, _ = pair
    done = admin(first.env(), "clients", "list")
    assert done.returncode == 2
    urls = ", ".join(sorted([first.base_url, second.base_url]))
    assert done.stderr == f"authgate clients: 2 local stacks are running ({urls}): choose one with --url\n"
    assert done.stdout == ""


def test_url_picks_the_server_and_the_command_names_it(pair: tuple[LocalStack, LocalStack, Path]) -> None:
    first, second, _ = pair
    created = admin(first.env(), "clients", "create", "--url", first.base_url, "--client-id", "only-on-first",
                    "--tenant", "demo", "--grant", "client_credentials", "--scope", "charges:read", "--json")
    assert created.returncode == 0, created.stderr
    assert created.stderr.splitlines()[0] == f"target: local stack {first.base_url} (stage local)"
    secret = json.loads(created.stdout)["client_secret"]
    assert "only-on-first" in client_ids(first)
    assert "only-on-first" not in client_ids(second)
    on_first = requests.post(f"{first.base_url}/oauth/token", data={"grant_type": "client_credentials"},
                             auth=("only-on-first", secret), timeout=10)
    on_second = requests.post(f"{second.base_url}/oauth/token", data={"grant_type": "client_credentials"},
                              auth=("only-on-first", secret), timeout=10)
    assert on_first.status_code == 200
    assert (on_second.status_code, on_second.json()["error"]) == (401, "invalid_client")
    by_env = admin({**second.env(), "AUTHGATE_URL": second.base_url}, "clients", "list")
    assert by_env.returncode == 0 and by_env.stderr.startswith(f"target: local stack {second.base_url}")


def test_an_unknown_url_lists_the_running_ones(pair: tuple[LocalStack, LocalStack, Path]) -> None:
    first, second, _ = pair
    done = admin(first.env(), "keys", "list", "--url", "http://127.0.0.1:9")
    assert done.returncode == 2
    urls = ", ".join(sorted([first.base_url, second.base_url]))
    assert done.stderr == (f"authgate keys: no local stack is running at http://127.0.0.1:9 (running: {urls})\n")


def test_a_killed_server_is_detected_and_a_stopped_one_leaves_the_other_alone(tmp_path: Path) -> None:
    shared = tmp_path / "state"
    survivor = start_stack(tmp_path / "survivor", state_dir=shared)
    try:
        killed = start_stack(tmp_path / "killed", state_dir=shared)
        killed.process.send_signal(signal.SIGKILL)  # no chance to clean up its record
        killed.process.wait(timeout=10)
        assert killed.state_file.exists()
        done = admin(survivor.env(), "clients", "list")
        assert done.returncode == 0, done.stderr
        assert done.stderr.splitlines() == [
            f"removed the record of the local stack at {killed.base_url}: process {killed.process.pid} is gone",
            f"target: local stack {survivor.base_url} (stage local)"]
        assert not killed.state_file.exists()

        stopped = start_stack(tmp_path / "stopped", state_dir=shared)
        assert stop_stack(stopped) == 0
        assert not stopped.state_file.exists() and survivor.state_file.exists()
        assert admin(survivor.env(), "keys", "list").returncode == 0
    finally:
        stop_stack(survivor)
