"""`authgate invoke FUNCTION EVENT.json` as a user runs it: a subprocess, result JSON on stdout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# Slow: every test runs the `authgate invoke` command in a subprocess.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def authgate(*args: str) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("authgate")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "authgate_cli.main"]
    return subprocess.run([*command, *args], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=False)


def test_invoke_prints_the_proxy_result_and_nothing_else_on_stdout() -> None:
    result = authgate("invoke", "jwks", "events/jwks-unknown-path-404.json")
    assert result.returncode == 0, result.stderr
    output = json.loads(result.stdout)  # stdout is exactly the result; logs went to stderr
    assert output["statusCode"] == 404
    assert output["multiValueHeaders"]["Content-Type"] == ["application/problem+json"]
    assert output["multiValueHeaders"]["x-request-id"] == ["jwks-unknown-path-404-0001"]
    assert output["isBase64Encoded"] is False
    assert json.loads(output["body"]) == {
        "type": "http://127.0.0.1:3000/problems/not_found",
        "title": "Not found",
        "status": 404,
        "detail": "No route for GET /no/such/thing.",
        "instance": "/no/such/thing",
        "code": "not_found",
        "traceId": "jwks-unknown-path-404-0001",
    }


def test_invoke_runs_against_the_seeded_local_aws() -> None:
    """No running serve needed: moto, tables, keys and the demo seed exist in the invoke process."""
    result = authgate("invoke", "token", "events/token-client-credentials.json")
    assert result.returncode == 0, result.stderr
    output = json.loads(result.stdout)
    assert output["statusCode"] == 200, output
    body = json.loads(output["body"])
    assert body["token_type"] == "Bearer" and body["scope"] == "charges:read"


@pytest.mark.parametrize("args, message", [
    (("invoke", "jwks", "events/no-such-event.json"), "event file not found: events/no-such-event.json"),
    (("invoke", "nosuchfunction", "events/jwks-get-jwks.json"),
     "unknown function 'nosuchfunction'; known: audit, authorize, charges, console, deliver, jwks, rotate_keys, token"),
])
def test_bad_input_is_one_line_on_stderr_and_exit_2(args: tuple[str, ...], message: str) -> None:
    result = authgate(*args)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"authgate invoke: {message}\n"


def test_malformed_event_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"httpMethod": "GET",')
    result = authgate("invoke", "jwks", str(broken))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(f"authgate invoke: event file {broken} is not valid JSON: ")
    assert result.stderr.count("\n") == 1


def test_event_that_is_not_an_object_is_rejected(tmp_path: Path) -> None:
    listed = tmp_path / "list.json"
    listed.write_text("[]")
    result = authgate("invoke", "jwks", str(listed))
    assert (result.returncode, result.stderr) == (2, f"authgate invoke: event file {listed} must hold a JSON object\n")


def test_usage_errors_exit_2() -> None:
    result = authgate("invoke", "jwks")
    assert result.returncode == 2
    assert "EVENT.json" in result.stderr
