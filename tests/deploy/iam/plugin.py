"""pytest plugin: record every AWS call of every function across the run, then check least privilege.

On start (the controller, before xdist spawns its workers) it creates a fresh call-log directory
and puts tests/deploy/iam/site on PYTHONPATH, so every Python process of the run -- workers,
`authgate serve` subprocesses, admin commands -- starts the recorder (sitecustomize). At the end
the controller reads every process's log and runs tests/deploy/iam/check.py:

- a call its role would deny fails the run (any subset of tests);
- with --iam-unused (what `make test` passes: only the whole suite can tell), a grant no call
  needs fails the run too.

The table of grants and the tests that exercised them goes to test-artifacts/iam-report.md.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
SITE_DIR = Path(__file__).with_name("site")
LOG_ROOT = REPO_ROOT / "test-artifacts" / "aws-calls"
REPORT = REPO_ROOT / "test-artifacts" / "iam-report.md"
ENV = "AUTHGATE_AWS_CALL_LOG_DIR"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--iam-unused", action="store_true", default=False,
                     help="fail on IAM grants no recorded AWS call needs (run with the whole suite)")


def _install_here() -> None:
    if str(SITE_DIR) not in sys.path:
        sys.path.insert(0, str(SITE_DIR))
    import authgate_call_recorder

    authgate_call_recorder.install()


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # an xdist worker: the controller set up the run
        _install_here()
        return
    run = LOG_ROOT / f"{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
    run.mkdir(parents=True, exist_ok=True)
    for old in LOG_ROOT.iterdir():  # earlier runs' logs (a day old: another run may still be going)
        if old != run and old.is_dir() and time.time() - old.stat().st_mtime > 86400:
            shutil.rmtree(old, ignore_errors=True)
    os.environ[ENV] = str(run)
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(SITE_DIR), os.environ.get("PYTHONPATH")) if p)
    config.stash[_RUN] = run
    _install_here()


_RUN = pytest.StashKey[Path]()
_RESULT = pytest.StashKey[list[str]]()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if hasattr(config, "workerinput") or _RUN not in config.stash:
        return
    strict = bool(config.getoption("--iam-unused"))
    lines, failed = _run_check(config.stash[_RUN], strict)
    config.stash[_RESULT] = lines
    if failed and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _run_check(run: Path, strict: bool) -> tuple[list[str], bool]:
    from tests.deploy.iam.check import check, read_calls, read_worlds
    from tests.deploy.iam.simulator import SimulatorUnavailable
    from tests.deploy.transform import TransformError, transformed

    calls = read_calls(run)
    if not calls and not strict:
        return [], False
    try:
        report = check(calls, read_worlds(run), transformed(), unused=strict)
    except (SimulatorUnavailable, TransformError) as exc:
        # Only `make test` (strict) must prove least privilege; an ad-hoc run says it did not.
        return [f"IAM least privilege NOT CHECKED: {exc}"], strict
    # A subset of the suite leaves most grants unexercised: its table goes beside the full one.
    path = REPORT if strict else REPORT.with_name("iam-report-partial.md")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# IAM grants and the tests that exercised them\n\n" + report.markdown(), encoding="utf-8")
    return [*report.summary(), f"  report: {path.relative_to(REPO_ROOT)}"], report.failed


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    lines = terminalreporter.config.stash.get(_RESULT, [])
    if lines:
        terminalreporter.section("IAM least privilege")
        for line in lines:
            terminalreporter.write_line(line)
