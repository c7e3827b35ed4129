"""Running the admin commands (`authgate clients|users|resources|tenants ...`) against a running `authgate serve`."""

from __future__ import annotations

import subprocess

from tests.e2e.conftest import REPO_ROOT, LocalStack, authgate_command


def admin(stack: LocalStack, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """`authgate ARGS` aimed at `stack` (its state directory), as an operator runs it; never raises on its exit code."""
    return subprocess.run([*authgate_command(), *args], cwd=REPO_ROOT, env=stack.env(), input=stdin, check=False,
                          capture_output=True, text=True, timeout=60)


def one_line_refusal(done: subprocess.CompletedProcess[str], line: str) -> None:
    """Exit 2, nothing on stdout, exactly one line on stderr (no traceback, no usage dump)."""
    assert (done.returncode, done.stdout, done.stderr) == (2, "", line + "\n")
