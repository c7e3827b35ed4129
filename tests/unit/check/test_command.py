"""The `authgate check` command: exit status 2 with one line when it cannot run, progress, limits."""

from __future__ import annotations

import io
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from authgate_cli.check.command import _Progress
from authgate_cli.check.findings import ProbeResult
from authgate_cli.check.probes import authgate_suite
from authgate_cli.check.probes.base import Options
from tests.unit.check.checking import check, mutating_args
from tests.unit.check.servers import API_KEY, CLIENT_ID, CLIENT_SECRET, ContractServer, serving


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize(("args", "line"), [
    (["not a url"], "not an http(s) URL: 'not a url'"),
    (["ftp://example.test"], "not an http(s) URL: 'ftp://example.test'"),
    (["http://example.test/api?x=1"], "a base URL has no query or fragment: 'http://example.test/api?x=1'"),
    (["http://example.test:99999"], "bad port in 'http://example.test:99999'"),
    ([], "give the BASE_URL to check (e.g. http://127.0.0.1:3000)"),
    (["http://example.test", "--mutating", "--api-key", "k"], "--mutating needs --client-id, --client-secret"),
    (["http://example.test", "--mutating", "--client-id", "c", "--client-secret", "s", "--api-key", "k",
      "--openapi", "x.yaml"], "--mutating runs authgate's probes; it cannot be combined with --openapi"),
    (["http://example.test", "--header", "no-colon"], "--header wants 'NAME: VALUE', got 'no-colon'"),
    (["http://example.test", "--timeout", "0"],
     "--timeout, --max-time, --burst, --burst-seconds, --amount and --sca-amount must be positive"),
])
def test_bad_arguments_are_one_line_and_exit_2(capsys, monkeypatch, args, line):
    monkeypatch.delenv("AUTHGATE_CHECK_CLIENT_SECRET", raising=False)
    monkeypatch.delenv("AUTHGATE_CHECK_API_KEY", raising=False)
    result = check(capsys, *args)
    assert (result.code, result.out, result.err) == (2, "", f"authgate check: {line}\n")


def test_a_malformed_option_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as exited:
        check(capsys, "http://example.test", "--amount", "lots")
    assert exited.value.code == 2
    assert capsys.readouterr().err == ("authgate check: argument --amount: invalid int value: 'lots' "
                                       "(see authgate check --help)\n")


def test_an_unreachable_base_url_is_one_line_and_exit_2_from_the_installed_command():
    port = closed_port()
    script = Path(sys.executable).with_name("authgate")
    done = subprocess.run([str(script), "check", f"http://127.0.0.1:{port}"], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[-1] == f"authgate check: cannot reach http://127.0.0.1:{port}: connection refused"
    assert "Traceback" not in done.stderr


def test_an_unresolvable_host_is_exit_2(capsys):
    result = check(capsys, "http://authgate-check.invalid", "--quiet")
    assert result.code == 2 and result.err.startswith("authgate check: cannot reach http://authgate-check.invalid: ")


@pytest.mark.slow
def test_a_request_without_answer_is_a_defect_and_the_time_budget_ends_the_run(capsys):
    with serving(ContractServer("slow-unknown-route")) as base:
        slow = check(capsys, base, "--api-key", API_KEY, "--json", "--quiet", "--timeout", "1")
        assert slow.code == 1
        unanswered = [f for f in slow.findings() if f["rule"] == "answers"]
        assert [f["probe"] for f in unanswered] == ["discovery.openid", "route.unknown", "route.unknown-from-browser"]
        assert unanswered[1]["message"] == "no HTTP answer: no answer within 1 s"
        assert unanswered[1]["request"]["url"].startswith(f"{base}/authgate-check-")

        cut = check(capsys, base, "--api-key", API_KEY, "--json", "--max-time", "1.5")
    assert cut.code == 2 and cut.report["exit_code"] == 2
    assert cut.report["stopped"].startswith("stopped after --max-time 1.5 s; ")
    assert cut.err.splitlines()[-1] == f"authgate check: {cut.report['stopped']}"
    not_run = [p for p in cut.report["probes"] if (p["skip_reason"] or "").startswith("not ")]
    assert not_run and not_run[-1]["name"] == "problem-types.resolve"


def test_progress_is_one_line_per_probe_when_not_on_a_terminal(capsys):
    with serving(ContractServer()) as base:
        result = check(capsys, base, "--api-key", API_KEY)
        quiet = check(capsys, base, "--api-key", API_KEY, "--quiet")
    lines = result.err.splitlines()
    assert len(lines) == 27
    assert lines[0] == "[ 1/27] discovery.metadata: pass"
    assert lines[-1] == "[27/27] problem-types.resolve: pass"
    assert quiet.err == "" and quiet.out.splitlines()[1:] == result.out.splitlines()[1:]


def test_progress_on_a_terminal_rewrites_one_line_and_clears_it():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    progress = _Progress(stream, quiet=False)
    probes = authgate_suite(Options(), "r")[:2]
    for index, probe in enumerate(probes, 1):
        progress(index, 2, probe, None)
        progress(index, 2, probe, ProbeResult(probe.name, probe.title, probe.group))
    assert stream.getvalue() == ("\r\x1b[K[1/2] discovery.metadata …\r\x1b[K[2/2] discovery.jwks …\r\x1b[K")


@pytest.mark.slow
def test_mutating_says_what_it_will_create_before_it_starts(capsys, monkeypatch):
    monkeypatch.setenv("AUTHGATE_CHECK_CLIENT_SECRET", CLIENT_SECRET)
    server = ContractServer()
    with serving(server) as base:
        result = check(capsys, base, "--api-key", API_KEY, "--mutating", "--client-id", CLIENT_ID)
    plan = result.err.split("[ 1/27]", 1)[0]
    assert plan.startswith(f"authgate check: --mutating will, on {base}:\n")
    assert "  - create 1 charge (100 usd, description \"authgate check " in plan
    assert "  - send at most 100 GET /charges?limit=1 (8 at a time, 30 s at most)" in plan
    assert result.code == 0 and CLIENT_SECRET not in result.err + result.out
    assert len(server.charges) == 1  # the one it announced (the read-only token was refused)


def test_refused_client_credentials_stop_the_run_with_exit_2(capsys):
    with serving(ContractServer()) as base:
        args = [a if a != CLIENT_SECRET else "wrong-secret" for a in mutating_args()]
        result = check(capsys, base, "--quiet", *args)
    assert result.code == 2 and result.out == ""
    assert result.err == ("authgate check: the token endpoint refused --client-id/--client-secret/--scope "
                          "(401 invalid_client)\n")


@pytest.mark.parametrize("quiet", [[], ["--quiet"], ["--json"]], ids=["progress", "quiet", "json"])
def test_refused_client_credentials_are_one_line_before_any_plan_or_progress(capsys, quiet):
    """docs/check.md: a 2 is one line on stderr and no report, whatever the output options."""
    server = ContractServer()
    with serving(server) as base:
        for secret, scope in (("wrong-secret", "charges:read charges:write"), (CLIENT_SECRET, "charges:admin")):
            args = [a if a != CLIENT_SECRET else secret for a in mutating_args()]
            result = check(capsys, base, *quiet, *args, "--scope", scope)
            code = "401 invalid_client" if secret == "wrong-secret" else "400 invalid_scope"
            assert (result.code, result.out, result.err) == (
                2, "", f"authgate check: the token endpoint refused --client-id/--client-secret/--scope ({code})\n")
    assert not server.charges


@pytest.mark.slow
def test_the_token_asked_for_before_the_probes_is_the_one_mutating_token_judges(capsys, monkeypatch):
    monkeypatch.setenv("AUTHGATE_CHECK_CLIENT_SECRET", CLIENT_SECRET)
    with serving(ContractServer()) as base:
        result = check(capsys, base, "--api-key", API_KEY, "--mutating", "--client-id", CLIENT_ID, "--json",
                       "--quiet")
    token = next(p for p in result.report["probes"] if p["name"] == "mutating.token")
    assert (result.code, token["outcome"], token["requests"]) == (0, "pass", 1)
    # 24 probes' requests plus the metadata read before them; the two tokens of the plan, not three.
    assert result.report["summary"]["requests"] == sum(p["requests"] for p in result.report["probes"]) + 1


def test_list_names_every_probe_and_its_rules(capsys):
    result = check(capsys, "--list")
    assert result.code == 0
    names = [line for line in result.out.splitlines() if not line.startswith(" ")]
    assert names == [p.name for p in authgate_suite(Options(), "r")]
    assert "    rules: allow-on-405, expected-status" in result.out
