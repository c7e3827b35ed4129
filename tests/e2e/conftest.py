"""A real `authgate serve` for end-to-end tests: a subprocess on a free port with the demo seed.

Fixtures:
- `local_stack` (session): the running stack — base_url, state_dir (for admin commands:
  pass env={"AUTHGATE_STATE_DIR": local_stack.state_dir, ...}), log_path, and `log()`.
- `base_url` (session): just its base URL, e.g. "http://127.0.0.1:41234".

The server's output goes to a log file; when a test fails, the tail of that log is attached to
the report. Teardown sends SIGTERM and waits (the server exits 0 on it), then kills if needed.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT = 60.0


@dataclass
class LocalStack:
    base_url: str
    port: int
    state_dir: Path
    log_path: Path
    process: subprocess.Popen[bytes]
    # The demo app's origin (http://127.0.0.1:PORT) when started with --callback-port, else None.
    demo_app: str | None = None
    # The host the stack serves and advertises: 127.0.0.1, or localhost with `--host localhost`.
    host: str = "127.0.0.1"

    def log(self, tail: int = 200) -> str:
        """The server's output so far (last `tail` lines)."""
        try:
            lines = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-tail:])

    def mails(self, to: str, subject: str = "", wait: float = 20.0) -> list[dict[str, Any]]:
        """The outbox's mails to `to` (with `subject` in their subject), from the demo app's /outbox.json, once
        there is one: mail leaves through the deliveries queue, which the stack's poller sends within seconds."""
        assert self.demo_app is not None
        deadline = time.monotonic() + wait
        while True:
            with urllib.request.urlopen(f"{self.demo_app}/outbox.json", timeout=10) as answer:
                entries = json.loads(answer.read())
            found = [e for e in entries if e.get("kind") == "mail" and e.get("to") == to
                     and subject in str(e.get("subject"))]
            if found or time.monotonic() > deadline:
                return found
            time.sleep(0.2)

    def env(self) -> dict[str, str]:
        """Environment for a subprocess (e.g. `authgate clients ...`) aimed at this stack."""
        env = {**os.environ, "AUTHGATE_STATE_DIR": str(self.state_dir)}
        env.pop("AUTHGATE_URL", None)
        return env

    @property
    def state_file(self) -> Path:
        """This server's record, which admin commands read to find it."""
        return self.state_dir / "servers" / f"{self.host}_{self.port}.json"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def authgate_command() -> list[str]:
    """The installed console script next to this interpreter, else `python -m authgate_cli.main`."""
    script = Path(sys.executable).with_name("authgate")
    return [str(script)] if script.exists() else [sys.executable, "-m", "authgate_cli.main"]


def start_stack(tmp: Path, *extra: str, state_dir: Path | None = None,
                env_extra: dict[str, str] | None = None) -> LocalStack:
    """Start `authgate serve` on a free port (with `env_extra` in its environment) and wait until it answers HTTP."""
    port = free_port()
    tmp.mkdir(parents=True, exist_ok=True)
    state_dir = state_dir or tmp / "state"
    log_path = tmp / "serve.log"
    env = {**os.environ, "AUTHGATE_STATE_DIR": str(state_dir), "PYTHONUNBUFFERED": "1", **(env_extra or {})}
    for name in ("PORT", "CALLBACK_PORT"):
        env.pop(name, None)
    with open(log_path, "wb") as log:
        # No fixed port: the demo app is off unless a test asks for it (--callback-port 0).
        demo = [] if "--callback-port" in extra else ["--callback-port", "off"]
        process = subprocess.Popen([*authgate_command(), "serve", "--port", str(port), *demo, *extra],
                                   cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    host = "localhost" if "localhost" in extra else "127.0.0.1"
    stack = LocalStack(f"http://{host}:{port}", port, state_dir, log_path, process, host=host)
    deadline = time.monotonic() + READY_TIMEOUT
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"authgate serve exited with {process.returncode} before it was ready:\n{stack.log()}")
        # Ready once the start-up banner is out (tables, keys and seed are loaded by then).
        if "authgate is running on" in stack.log() and _answers(stack.base_url):
            stack.demo_app = json.loads(stack.state_file.read_text()).get("demo_app")
            return stack
        if time.monotonic() > deadline:
            stop_stack(stack)
            raise RuntimeError(f"authgate serve not ready after {READY_TIMEOUT:.0f}s:\n{stack.log()}")
        time.sleep(0.1)


def _answers(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/.well-known/jwks.json", timeout=2):
            return True
    except urllib.error.HTTPError:
        return True  # an HTTP answer of any status: the server is up
    except OSError:
        return False


def stop_stack(stack: LocalStack) -> int | None:
    return stop_process(stack.process)


def stop_process(process: subprocess.Popen[bytes]) -> int | None:
    """SIGTERM, then SIGKILL if it has not left within 10 s; its exit status."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
    return process.returncode


@contextlib.contextmanager
def running_stack(tmp: Path, *extra: str, env_extra: dict[str, str] | None = None) -> Iterator[LocalStack]:
    """A started stack, stopped at the end; its log is attached to a failing test's report."""
    stack = start_stack(tmp, *extra, env_extra=env_extra)
    _STACKS.append(stack)
    try:
        yield stack
    finally:
        stop_stack(stack)
        _STACKS.remove(stack)


@pytest.fixture(scope="session")
def local_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    with running_stack(tmp_path_factory.mktemp("authgate-serve")) as stack:
        yield stack


@pytest.fixture(scope="session")
def base_url(local_stack: LocalStack) -> str:
    return local_stack.base_url


@pytest.fixture(scope="session")
def demo_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    """A stack with its demo app on a free port (the demo clients' redirect URIs follow it)."""
    with running_stack(tmp_path_factory.mktemp("authgate-demo"), "--callback-port", "0") as stack:
        yield stack


@pytest.fixture(scope="session")
def mcp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The MCP stack (tests/e2e/mcp_stack.py): authgate serve trusting a test CA, a client metadata
    document host, and two MCP servers registered as resources."""
    from tests.e2e.mcp_stack import mcp_stack

    with mcp_stack(tmp_path_factory.mktemp("authgate-mcp")) as stack:
        yield stack


@pytest.fixture(scope="module")
def chromium_browser() -> Iterator[Any]:
    """Headless Chromium (tests/e2e/chromium.py), one per test module."""
    from tests.e2e.chromium import chromium

    with chromium() as browser:
        yield browser


@pytest.fixture
def context(chromium_browser: Any) -> Iterator[Any]:
    """A fresh browser context (its own cookies) on the module's Chromium, closed after the test."""
    ctx = chromium_browser.new_context()
    try:
        yield ctx
    finally:
        ctx.close()


_STACKS: list[LocalStack] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """On a failing e2e test, attach the server's recent output to the report."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and _STACKS:
        for stack in _STACKS:
            report.sections.append((f"authgate serve log ({stack.base_url})", stack.log(80)))
