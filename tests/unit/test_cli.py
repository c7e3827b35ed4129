"""The `authgate` command line: cheap to import, admin groups registered lazily."""

from __future__ import annotations

import subprocess
import sys

import pytest

from authgate_cli import main as cli


def test_importing_the_cli_loads_no_aws_or_template_libraries() -> None:
    code = ("import sys, authgate_cli.main; "
            "print(sorted(m for m in ('boto3', 'botocore', 'moto', 'yaml') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_help_lists_local_and_admin_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--help"])
    assert exit_info.value.code == 0
    listed = capsys.readouterr().out
    for command in ("serve", "invoke", "clients", "users", "keys"):
        assert f"    {command} " in listed


def test_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["frobnicate"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'frobnicate'" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "usage"), [
    (["clients", "create", "--tenant", "demo", "--bogus"], "usage: authgate clients create "),
    (["keys", "list", "--nope", "1"], "usage: authgate keys list "),
    (["tenants", "show", "acme", "--colour"], "usage: authgate tenants show "),
    (["resources", "list", "--all"], "usage: authgate resources list "),
    (["users", "create", "--tenant", "t", "--username", "u", "--pw", "p"], "usage: authgate users create "),
    (["serve", "--verbose"], "usage: authgate serve "),
])
def test_a_wrong_flag_prints_the_subcommands_usage(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                     usage: str) -> None:
    """argparse names an unknown option from the top-level parser; the subcommand's usage says what it takes."""
    with pytest.raises(SystemExit) as exit_info:
        cli.main(argv)
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(usage), captured.err
    command = usage.removeprefix("usage: ").strip()
    unknown = " ".join(argv[[a.startswith("--") and a not in ("--tenant", "--username") for a in argv].index(True):])
    assert captured.err.endswith(f"\n{command}: error: unrecognized arguments: {unknown}\n"), captured.err


def test_a_wrong_flag_of_check_is_its_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["check", "http://127.0.0.1:3000", "--bogus"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == ("authgate check: unrecognized arguments: --bogus "
                                       "(see authgate check --help)\n")


def test_serve_options() -> None:
    args = cli.build_parser(["serve"]).parse_args(
        ["serve", "--port", "4100", "--seed", "s.json", "--dynamodb-endpoint", "http://127.0.0.1:8000"])
    assert (args.port, str(args.seed), args.dynamodb_endpoint, args.host) == (
        4100, "s.json", "http://127.0.0.1:8000", "127.0.0.1")


@pytest.mark.parametrize("flag", ["--allow-loopback-outbound", "--allow-loopback-client-metadata"])
def test_the_loopback_switch_and_its_old_name_are_one_option(flag: str) -> None:
    """--allow-loopback-client-metadata, its name before it covered every outbound request, stays an alias."""
    parser = cli.build_parser(["serve"])
    assert parser.parse_args(["serve"]).allow_loopback_outbound is False
    assert parser.parse_args(["serve", flag]).allow_loopback_outbound is True


def test_port_defaults_to_the_port_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate_cli.local.serve import default_port

    monkeypatch.delenv("PORT", raising=False)
    assert default_port() == 3000
    monkeypatch.setenv("PORT", "4321")
    assert default_port() == 4321
    monkeypatch.setenv("PORT", "http")
    with pytest.raises(SystemExit, match="PORT must be a port number"):
        default_port()


def test_a_reader_that_goes_away_is_not_a_traceback() -> None:
    """`authgate check --list | head -1`: the closed pipe ends the command quietly."""
    script = ("import subprocess, sys\n"
              "p = subprocess.Popen([sys.executable, '-m', 'authgate_cli', 'check', '--list'],\n"
              "                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
              "p.stdout.readline(); p.stdout.close()\n"
              "err = p.stderr.read().decode(); print(p.wait()); print(err)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    status, _, err = out.stdout.partition("\n")
    assert (status, err.strip()) == ("0", "")


def test_version_names_the_command_the_runtime_and_python() -> None:
    import platform
    from importlib import metadata

    from tests.e2e.conftest import authgate_command

    done = subprocess.run([*authgate_command(), "--version"], capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (f"authgate-cli {metadata.version('authgate-cli')} (runtime authgate "
                           f"{metadata.version('authgate')}, Python {platform.python_version()})\n")
