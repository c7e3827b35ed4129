"""README's "First flow", run as written from a fresh clone of this repository's HEAD.

The section between `<!-- first-flow:start -->` and `<!-- first-flow:end -->` is read as a
newcomer reads it: its shell blocks are run in order (`make run` in the background, the curl
command after it), its browser steps are done in headless Chromium (the URL, the button and the
credentials it names). Nothing is rewritten except the two port numbers: tests never bind fixed
ports, so `make run` gets PORT and CALLBACK_PORT (which the README mentions) and the commands'
`127.0.0.1:3000` / `127.0.0.1:8765` follow them.

Figures, not assertions: the time from `git clone` to the first token and to the first
completed authorization-code flow is printed and kept in test-artifacts/first-flow.json. The
clone installs its own `.venv` (`make run`), from the package index and pip's cache.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.chromium import ARTIFACTS, chromium, screenshot, watch
from tests.e2e.conftest import REPO_ROOT, free_port

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.slow]

START, END = "<!-- first-flow:start -->", "<!-- first-flow:end -->"
READY_SECONDS = 600  # a cold pip cache downloads every wheel


@dataclass
class FirstFlow:
    commands: list[str]   # each fenced sh block, in order
    prose: str            # the text around them

    def url(self, port: int) -> str:
        found = re.findall(rf"http://127\.0\.0\.1:{port}/(?=\s|$)", self.prose)
        assert found, f"the first flow names no http://127.0.0.1:{port}/ to open"
        return found[0]

    def button(self) -> str:
        found = re.findall(r"choose \*\*(Sign in with [^*]+)\*\*", self.prose)
        assert found, "the first flow names no button to choose"
        return found[0]

    def credentials(self) -> tuple[str, str]:
        found = re.findall(r"sign in as\s+`([^`]+)`\s*/\s*`([^`]+)`", self.prose)
        assert found, "the first flow names no username / password"
        return found[0]


def read_first_flow(readme: Path) -> FirstFlow:
    text = readme.read_text("utf-8")
    assert text.count(START) == 1 and text.count(END) == 1, "README must mark its first flow exactly once"
    section = text.split(START, 1)[1].split(END, 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.DOTALL)
    commands = [line for block in blocks for line in block.strip().splitlines()
                if line.strip() and not line.lstrip().startswith("#")]
    return FirstFlow(commands, re.sub(r"```sh\n.*?```", "", section, flags=re.DOTALL))


def test_the_readme_marks_a_first_flow_of_make_run_a_token_and_a_browser() -> None:
    flow = read_first_flow(REPO_ROOT / "README.md")
    assert flow.commands[0] == "make run"
    assert any(c.startswith("curl ") and "/oauth/token" in c for c in flow.commands[1:])
    assert flow.url(8765) == "http://127.0.0.1:8765/"
    assert flow.button() == "Sign in with demo-web"
    assert flow.credentials() == ("alice", "alice-password")


@pytest.fixture
def clone(tmp_path: Path) -> Iterator[Path]:
    target = tmp_path / "authgate"
    subprocess.run(["git", "clone", "--quiet", str(REPO_ROOT), str(target)], check=True, timeout=120)
    yield target


def test_first_flow_from_a_fresh_clone(clone: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    flow = read_first_flow(clone / "README.md")
    port, callback_port = free_port(), free_port()

    def ported(command: str) -> str:
        return command.replace("127.0.0.1:3000", f"127.0.0.1:{port}").replace("127.0.0.1:8765",
                                                                              f"127.0.0.1:{callback_port}")

    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH", "AUTHGATE_"))}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if "/.venv" not in p)
    env.update(PORT=str(port), CALLBACK_PORT=str(callback_port), AUTHGATE_STATE_DIR=str(tmp_path / "state"),
               PYTHONUNBUFFERED="1")
    log_path = tmp_path / "make-run.log"
    assert flow.commands[0] == "make run"
    with open(log_path, "wb") as log:
        server = subprocess.Popen(shlex.split(flow.commands[0]), cwd=clone, env=env, stdout=log,
                                  stderr=subprocess.STDOUT, start_new_session=True)
    try:
        banner = f"authgate is running on http://127.0.0.1:{port}"
        while banner not in log_path.read_text("utf-8", "replace"):
            assert server.poll() is None, f"make run exited {server.returncode}:\n{tail(log_path)}"
            assert time.monotonic() - started < READY_SECONDS, f"make run not ready:\n{tail(log_path)}"
            time.sleep(0.5)
        ready = time.monotonic() - started

        token = None
        for command in flow.commands[1:]:
            done = subprocess.run(ported(command), shell=True, cwd=clone, env=env, capture_output=True,
                                  text=True, timeout=60, check=False)
            assert done.returncode == 0, f"{command}\n{done.stderr}"
            if "/oauth/token" in command:
                token = json.loads(done.stdout)
        assert token is not None and token["token_type"] == "Bearer" and token["access_token"].count(".") == 2
        first_token = time.monotonic() - started

        result = browser_steps(flow, ported(flow.url(8765)), port)
        first_flow = time.monotonic() - started
    finally:
        os.killpg(server.pid, signal.SIGTERM)  # make and the authgate it runs: our own process group
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=10)
    assert "Traceback" not in log_path.read_text("utf-8", "replace")
    assert result["charges_status"] == "3. GET /charges: HTTP 200"
    # `make run` installs what serving needs and nothing of the test suite.
    for module, wanted in (("moto", 0), ("hypercorn", 0), ("pytest", 1), ("playwright", 1), ("cfnlint", 1)):
        found = subprocess.run([str(clone / ".venv" / "bin" / "python"), "-c", f"import {module}"],
                               capture_output=True, timeout=60, check=False)
        assert (found.returncode != 0) == bool(wanted), f"import {module} in make run's .venv"

    figures = {"clone_to_server_ready_s": round(ready, 1), "clone_to_first_token_s": round(first_token, 1),
               "clone_to_first_authorization_code_flow_s": round(first_flow, 1),
               "venv_bytes": directory_size(clone / ".venv")}
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "first-flow.json").write_text(json.dumps(figures, indent=2) + "\n")
    with capsys.disabled():
        print(f"\nfirst flow from a fresh clone: {figures}")


def browser_steps(flow: FirstFlow, url: str, port: int) -> dict[str, Any]:
    """Open the URL, choose the button, sign in, approve: what the README tells a person to do."""
    username, password = flow.credentials()
    with chromium() as browser:
        context = browser.new_context()
        seen = watch(context)
        page = context.new_page()
        page.goto(url)
        page.click(f"text={flow.button()}")
        page.wait_for_url(f"http://127.0.0.1:{port}/oauth/authorize?*")
        page.fill("#username", username)
        page.fill("#password", password)
        page.click("text=Approve")
        page.wait_for_selector("main[data-flow-done=true]", timeout=30_000)
        steps = page.locator("section.step h2").all_inner_texts()
        screenshot(page, "first-flow-done")
        seen.assert_clean()
        context.close()
    # The step after GET /charges (when the token may write) offers the demo's "Charge 150.00".
    return {"charges_status": next(s for s in steps if s.startswith("3. "))}


def tail(path: Path, lines: int = 40) -> str:
    return "\n".join(path.read_text("utf-8", "replace").splitlines()[-lines:])


def directory_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())
