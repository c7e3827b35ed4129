"""docs/mcp.md followed as printed: the local try-it (the example server and client from their own
environment, headless Chromium as the person's browser), the metadata-document steps, the client of
section 4 as the shipped file, and the server excerpts as the shipped server.

The shell blocks run unchanged, from the repository's root: what moves them is the environment a
reader may set too (PORT, MCP_PORT, DOC_PORT, MCP_CALLBACK_PORT; TMPDIR, so that `mktemp -d` lands
in the test's directory; BROWSER, which Python's `webbrowser` runs with the authorization URL).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.e2e.conftest import REPO_ROOT, LocalStack, free_port
from tests.examples import EXAMPLE, program

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

DOC = REPO_ROOT / "docs" / "mcp.md"
SIGNED_IN = "Signed in. You can close this tab and go back to the terminal."


def marked(marker: str) -> list[str]:
    """The fenced blocks after `<!-- marker -->`, as a reader copies them."""
    found = re.findall(rf"<!-- {marker} -->\n *```(?:sh|python)?\n(.*?)\n *```", DOC.read_text("utf-8"), re.DOTALL)
    return [textwrap.dedent(body) + "\n" for body in found]


def try_it() -> str:
    (block,) = marked("mcp-try-it")
    return block


def test_the_client_of_section_4_is_the_example_file_as_printed() -> None:
    (client,) = marked("mcp-client")
    assert client == (EXAMPLE / "mcp_client.py").read_text("utf-8")


def test_the_server_excerpts_are_in_the_example_server_as_printed() -> None:
    excerpts = re.findall(r"<!-- mcp-server-excerpt -->\n *```python\n(.*?)\n *```", DOC.read_text("utf-8"),
                          re.DOTALL)
    assert len(excerpts) == 2
    flat = re.sub(r"\s+", " ", (EXAMPLE / "mcp_server.py").read_text("utf-8"))
    for excerpt in excerpts:
        assert re.sub(r"\s+", " ", textwrap.dedent(excerpt)).strip() in flat, excerpt


def test_the_example_runs_from_an_environment_of_its_own() -> None:
    """`make mcp-example`: the example's dependencies, and neither authgate nor a dev tool."""
    python = str(program("python"))
    found = subprocess.run([python, "-c", "import mcp_server, mcp_client, metadata_document, mangum, jwt"],
                           capture_output=True, text=True, timeout=60, check=False, env={"PATH": os.environ["PATH"]},
                           cwd="/")
    assert found.returncode == 0, found.stderr
    for absent in ("authgate", "authgate_cli", "pytest", "moto", "playwright"):
        done = subprocess.run([python, "-c", f"import {absent}"], capture_output=True, timeout=60, check=False,
                              env={"PATH": os.environ["PATH"]}, cwd="/")
        assert done.returncode != 0, f"{absent} is importable in the example's environment"


def test_the_try_it_writes_secrets_only_to_its_temporary_directory_and_follows_port() -> None:
    block = try_it()
    assert "WORK=$(mktemp -d)" in block
    redirects = re.findall(r"(?<![0-9&])>\s*(\S+)", block)
    assert redirects and all(r.startswith('"$WORK/') or r == "/dev/null" for r in redirects), redirects
    assert "MCP_CLIENT_STATE=$WORK " in block
    assert "${PORT:-3000}" in block and ":3000" not in block.replace("${PORT:-3000}", "")
    assert "${MCP_PORT:-8080}" in block and ":8080" not in block.replace("${MCP_PORT:-8080}", "")


def untracked() -> set[str]:
    done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=60, check=True)
    return set(done.stdout.splitlines())


def environment(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS", "PYTHONPATH", "AUTHGATE_URL"))}
    # The browser keeps the usual temporary directory: Chromium's singleton socket path under the test's
    # own (deep, with xdist) would pass the 108 bytes a Unix socket path may have.
    browser = f"env TMPDIR={tempfile.gettempdir()} PYTHONPATH={REPO_ROOT} {sys.executable} -m tests.e2e.browser_sign_in"
    env.update(TMPDIR=str(tmp), SIGN_IN_LOG=str(tmp / "sign-ins.jsonl"), CALLBACK_PORT="off", BROWSER=f"{browser} %s",
               **extra)
    return env


def run_try_it(script: str, env: dict[str, str], tmp: Path) -> subprocess.CompletedProcess[str]:
    """The block in bash, its own process group (the MCP server it starts goes with it); what it printed so
    far, and the page a failed sign-in left, are the report of a run that does not finish."""
    out, err = tmp / "try-it.out", tmp / "try-it.err"
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        shell = subprocess.Popen(["bash", "-c", f"set -eu\n{script}"], cwd=REPO_ROOT, env=env, stdout=stdout,
                                 stderr=stderr, start_new_session=True)
        try:
            shell.wait(timeout=200)
        except subprocess.TimeoutExpired:
            os.killpg(shell.pid, signal.SIGKILL)
            shell.wait(timeout=30)
            page = Path(env["SIGN_IN_LOG"] + ".html")
            pytest.fail(f"the try-it did not finish:\n{out.read_text()[-3000:]}\n{err.read_text()[-3000:]}\n"
                        + (page.read_text()[-2000:] if page.exists() else ""))
    done = subprocess.CompletedProcess(shell.args, shell.returncode, out.read_text(), err.read_text())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def sign_ins(tmp: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (tmp / "sign-ins.jsonl").read_text("utf-8").splitlines()]


def assert_the_client_ran(done: subprocess.CompletedProcess[str], tmp: Path, mcp: str, client_id: str | None) -> None:
    (printed,) = marked("mcp-try-it-output")  # what the doc says the client prints
    lines = done.stdout.splitlines()
    assert [line for line in lines if line.startswith(("tools:", "list_notes:", "add_note:"))] == printed.splitlines()
    # Twice to the browser: to sign in for mcp:read, then the step-up after add_note's 403.
    seen = sign_ins(tmp)
    assert [(s["scope"], s["resource"], s["code_challenge_method"]) for s in seen] == [
        ("mcp:read", mcp, "S256"), ("mcp:read mcp:write", mcp, "S256")]
    assert all(s["page"] == SIGNED_IN for s in seen)
    if client_id is not None:
        assert {s["client_id"] for s in seen} == {client_id}
    (work,) = [p for p in tmp.iterdir() if p.is_dir() and p.name.startswith("tmp.") and (p / "oauth.json").exists()]
    assert oct((work / "oauth.json").stat().st_mode & 0o777) == "0o600"
    assert set(json.loads((work / "oauth.json").read_text())) == {"client", "tokens"}


def test_the_local_try_it_runs_as_printed(local_stack: LocalStack, tmp_path: Path) -> None:
    mcp_port = free_port()
    mcp = f"http://127.0.0.1:{mcp_port}/mcp"
    before = untracked()
    done = run_try_it(try_it(), environment(tmp_path, PORT=str(local_stack.port), MCP_PORT=str(mcp_port),
                                            AUTHGATE_STATE_DIR=str(local_stack.state_dir)), tmp_path)
    challenge = re.search(r"^(?i:www-authenticate): (.*?)\r?$", done.stdout, re.MULTILINE)
    assert re.findall(r"^HTTP/1.1 (\d{3}) ", done.stdout, re.MULTILINE) == ["401"]
    assert challenge and challenge.group(1) == (
        f'Bearer resource_metadata="http://127.0.0.1:{mcp_port}/.well-known/oauth-protected-resource/mcp", '
        'scope="mcp:read"')
    assert_the_client_ran(done, tmp_path, mcp, None)
    registered = {s["client_id"] for s in sign_ins(tmp_path)}
    assert len(registered) == 1 and not registered.pop().startswith("https://")  # dynamic registration
    assert untracked() == before, untracked() - before  # nothing written into the repository
    assert not (REPO_ROOT / "mcp.json").exists()


def test_the_metadata_document_steps_run_as_printed(tmp_path: Path) -> None:
    steps = marked("mcp-metadata-step")
    assert len(steps) == 3 and "--allow-loopback-outbound" in steps[1] and "SSL_CERT_FILE=" in steps[1]
    port, mcp_port, doc_port, callback_port = free_port(), free_port(), free_port(), free_port()
    env = environment(tmp_path, PORT=str(port), MCP_PORT=str(mcp_port), DOC_PORT=str(doc_port),
                      MCP_CALLBACK_PORT=str(callback_port), AUTHGATE_STATE_DIR=str(tmp_path / "state"))
    log = tmp_path / "first-terminal.log"
    with open(log, "wb") as out:
        first = subprocess.Popen(["bash", "-c", steps[0] + steps[1]], cwd=REPO_ROOT, env=env, stdout=out,
                                 stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while True:
            assert first.poll() is None, log.read_text()
            try:
                if requests.get(f"http://127.0.0.1:{port}/.well-known/jwks.json", timeout=2).status_code == 200:
                    break
            except requests.RequestException:  # bound, not yet serving: the port is bound first
                pass
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        client_line = next(line for line in try_it().splitlines(keepends=True) if "mcp_client.py" in line)
        done = run_try_it(try_it().replace(client_line, steps[2]), env, tmp_path)
    finally:
        os.killpg(first.pid, signal.SIGTERM)  # authgate serve and the document server: this group only
        first.wait(timeout=30)
    document = f"https://127.0.0.1:{doc_port}/client.json"
    assert_the_client_ran(done, tmp_path, f"http://127.0.0.1:{mcp_port}/mcp", document)
    assert f"client ID metadata document: {document}" in log.read_text()
