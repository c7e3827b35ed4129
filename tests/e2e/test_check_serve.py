"""`authgate check` against `authgate serve`: the local stack keeps the error contract.

The installed command runs as a subprocess against the session's stack (read-only, and from the
served OpenAPI document), and with --mutating against a stack of its own, so the charge it
creates, the failed-auth counters and the usage-plan bucket it drains stay out of the shared one.
The same command proves a deployed stage after `sam deploy` (docs/check.md).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from junitparser import JUnitXml

from tests.e2e.conftest import LocalStack, authgate_command, start_stack, stop_stack
from tests.e2e.flows import Flows

pytestmark = pytest.mark.e2e
MUTATING = {"mutating.token", "mutating.insufficient-scope", "mutating.idempotent-replay", "mutating.sca-challenge",
            "mutating.rate-limit"}


def run_check(base_url: str, *args: str) -> tuple[int, dict, str]:
    done = subprocess.run([*authgate_command(), "check", base_url, "--json", *args], capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


def outcomes(report: dict) -> dict[str, str]:
    return {p["name"]: p["outcome"] for p in report["probes"]}


def limited_by_the_stack(report: dict, name: str) -> bool:
    """A probe the stack answered with 429 (failed-auth counters other tests on this stack raised)."""
    probe = next(p for p in report["probes"] if p["name"] == name)
    return probe["outcome"] == "skip" and (probe["skip_reason"] or "").startswith("answered 429")


def test_the_local_stack_keeps_the_error_contract(base_url, tmp_path):
    junit = tmp_path / "check.xml"
    code, report, stderr = run_check(base_url, "--api-key", "demo-api-key", "--junit", str(junit))
    findings = [dict(f, probe=p["name"]) for p in report["probes"] for f in p["findings"]]
    assert findings == [], json.dumps(findings, indent=2)
    assert code == 0 and report["exit_code"] == 0
    seen = outcomes(report)
    assert len(seen) == 27
    # The delegation grants are advertised and served (device code, ID-JAG, token exchange).
    assert seen["discovery.grants"] == "pass"
    grants = next(p for p in report["probes"] if p["name"] == "discovery.grants")
    assert grants["requests"] == 5  # the metadata, the three grant types, the device authorization endpoint
    for name, outcome in seen.items():
        if name in MUTATING:
            assert outcome == "skip", name
        elif not limited_by_the_stack(report, name):
            assert outcome == "pass", (name, outcome)
    assert stderr.splitlines()[-1] == "[27/27] problem-types.resolve: pass"
    [suite] = list(JUnitXml.fromfile(str(junit)))
    assert (suite.tests, suite.failures) == (27, 0)


def test_the_served_openapi_document_gives_no_defect(base_url):
    code, report, _ = run_check(base_url, "--openapi", f"{base_url}/openapi.json", "--quiet",
                                "--header", "x-api-key: demo-api-key")
    defects = [(p["name"], f["rule"], f["message"]) for p in report["probes"] for f in p["findings"]
               if f["severity"] == "defect"]
    assert defects == [] and code == 0
    names = outcomes(report)
    assert {"openapi.POST /charges.no-credentials", "openapi.POST /oauth/token.malformed-body",
            "openapi./charges.wrong-method", "problem-types.resolve"} <= set(names)
    assert names["openapi.POST /oauth/token.malformed-body"] == "pass"


@pytest.fixture(scope="module")
def own_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    stack = start_stack(Path(tmp_path_factory.mktemp("authgate-check")))
    try:
        yield stack
    finally:
        stop_stack(stack)


def test_the_state_changing_probes_pass_on_a_stack_of_their_own(own_stack):
    """With alice's token from a password sign-in, a charge at the demo tenant's threshold gets the RFC 9470
    challenge (mutating.sca-challenge)."""
    flows = Flows(own_stack.base_url)
    code_, verifier = flows.authorize()
    user_token = flows.exchange(code_, verifier).json()["access_token"]
    code, report, stderr = run_check(own_stack.base_url, "--api-key", "demo-api-key", "--mutating",
                                     "--client-id", "demo-service", "--client-secret", "demo-service-secret",
                                     "--user-token", user_token, "--sca-amount", "10000")
    findings = [dict(f, probe=p["name"]) for p in report["probes"] for f in p["findings"]]
    assert findings == [], json.dumps(findings, indent=2)
    assert set(outcomes(report).values()) == {"pass"} and code == 0
    burst = next(p for p in report["probes"] if p["name"] == "mutating.rate-limit")
    assert burst["notes"][0].startswith("429 after ") and burst["notes"][0].endswith("Retry-After 1")
    assert stderr.startswith(f"authgate check: --mutating will, on {own_stack.base_url}:\n")
    assert "demo-service-secret" not in stderr + json.dumps(report)
    assert user_token.split(".")[2] not in stderr + json.dumps(report)
