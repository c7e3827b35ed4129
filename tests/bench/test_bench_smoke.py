"""Smoke of `make bench`: `python -m bench --quick` produces every figure the issue asks for.

A benchmark, not a timed test: nothing here asserts that a figure is fast or within its target;
only that each is measured (a number, for every function and operation) and that the handlers'
cold imports pull no dev-only package (moto, yaml, pytest ...), which would make the cold figures
lie about Lambda.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS = {"authorize", "token", "jwks", "charges", "rotate_keys", "audit", "console"}
OPERATIONS = {"client_credentials token", "authorization_code exchange", "refresh_token", "GET /oauth/authorize",
              "GET /.well-known/jwks.json", "POST /charges, first with Idempotency-Key", "POST /charges, replay",
              "POST /charges under authorization_details", "GET /charges/{id}", "GET /charges/{id}, a new access token", "client_credentials token, DPoP",
              "GET /charges/{id}, DPoP"}
REFERENCE_FUNCTIONS = {"token", "charges"}
# The operations with a warm-CPU target against the reference stack (issue 15) ...
REFERENCE_TARGETED = {"client_credentials token", "POST /charges, first with Idempotency-Key", "POST /charges, replay",
                      "GET /charges/{id}"}
# ... and every one it serves, compared.
REFERENCE_OPERATIONS = REFERENCE_TARGETED | {"GET /charges/{id}, a new access token"}


# The quick bench is bounded by the CPU it uses, not by the wall clock. It used 22 s of CPU itself and 12 s in the
# processes it starts, but 168 s of wall time on the shared 2-core machine with other suites running and 234 s
# beside `make test-fast`: the 240 s wall-clock limit it had, sized on a quiet machine, failed under load.
# The CPU is read from /proc, not limited with RLIMIT_CPU: an armed CPU limit makes the kernel count process
# CPU time per tick, and the bench's sub-millisecond CPU samples then read 0 (measured: 161 of 200).
CPU_SECONDS = 150
# Wall time only catches a run that is stuck (using no CPU), however loaded the machine is.
STUCK_SECONDS = 1800


def cpu_seconds(pid: int) -> float:
    """CPU time of a running process and of the children it has waited for (proc(5) stat fields 14-17); 0 without
    /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text("ascii").rpartition(")")[2].split()
    except OSError:
        return 0.0
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def run_quick_bench(output: Path) -> subprocess.CompletedProcess[str]:
    """`python -m bench --quick`, stopped (and the test failed) past CPU_SECONDS of CPU or STUCK_SECONDS of wall time."""
    argv = [sys.executable, "-m", "bench", "--quick", "--output", str(output)]
    started = time.monotonic()
    with subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as bench:
        while True:
            try:
                out, err = bench.communicate(timeout=2)
                return subprocess.CompletedProcess(argv, bench.returncode, out, err)
            except subprocess.TimeoutExpired:
                used, waited = cpu_seconds(bench.pid), time.monotonic() - started
                if used > CPU_SECONDS or waited > STUCK_SECONDS:
                    bench.kill()
                    bench.communicate()
                    pytest.fail(f"the quick bench was stopped after {used:.0f} s of CPU and {waited:.0f} s")


def positive(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


@pytest.mark.slow
@pytest.mark.timeout(STUCK_SECONDS + 120)
def test_quick_bench_reports_every_figure(tmp_path: Path) -> None:
    output = tmp_path / "results.json"
    run = run_quick_bench(output)
    assert run.returncode == 0, run.stderr[-4000:]
    results = json.loads(output.read_text("utf-8"))

    cold = results["cold_init"]
    assert positive(cold["import_boto3_ms"]) and len(cold["import_boto3_runs"]) == 3
    assert positive(cold["dynamodb_client_floor_ms"]) and positive(cold["dynamodb_client_floor_ratio"])
    assert set(cold["functions"]) == FUNCTIONS
    for name, figures in cold["functions"].items():
        assert all(positive(figures[k]) for k in ("cold_ms", "ratio", "floor_ratio", "import_ms", "clients_ms",
                                                    "first_request_ms")), name
        assert len(figures["runs"]) == 3 and isinstance(figures["holds"], bool)
        assert figures["dev_only_modules"] == [], (name, figures["dev_only_modules"])
        # Issue 30: each function's cold first request, its AWS calls by operation.
        assert positive(figures["aws_calls"]) and sum(figures["aws_operations"].values()) == figures["aws_calls"]
    assert "Scan" not in cold["functions"]["token"]["aws_operations"]
    assert "| function | AWS calls | which | budget | reference |" in run.stdout
    assert {"AWS calls, cold token request"} <= {t["what"] for t in results["targets"]}
    # The reference stack (bench/reference) is measured the same way, and compared.
    assert set(cold["reference"]) == REFERENCE_FUNCTIONS
    assert all(positive(f["cold_ms"]) and f["dev_only_modules"] == [] and positive(f["aws_calls"])
               for f in cold["reference"].values())
    versus = results["versus_reference"]
    assert set(versus["cold_init"]) == REFERENCE_FUNCTIONS and set(versus["warm_cpu"]) == REFERENCE_OPERATIONS
    assert set(versus["cold_first_request"]) == REFERENCE_FUNCTIONS
    assert all(positive(v) for part in versus.values() for v in part.values())
    assert set(results["reference_operations"]) == REFERENCE_OPERATIONS

    assert set(results["operations"]) == OPERATIONS
    for name, op in results["operations"].items():
        assert positive(op["dynamodb_calls"]), name
        assert sum(op["dynamodb_operations"].values()) == op["dynamodb_calls"]
        assert all(positive(op[kind][q]) for kind in ("latency_ms", "cpu_ms") for q in ("p50", "p99")), name

    for alg in ("RS256", "ES256"):
        guard = results["guard"][alg]
        assert all(positive(guard[k]) for k in ("jwt_decode_us", "guard_us", "ratio", "guard_remembered_token_us")), alg

    # DPoP (issue 13): the proof check against a bare ES256 verification, and one extra write per request.
    proof = results["dpop_proof"]
    assert all(positive(proof[k]) for k in ("bare_es256_verify_us", "proof_check_us", "ratio"))
    operations = results["operations"]
    for bearer, dpop in (("client_credentials token", "client_credentials token, DPoP"),
                         ("GET /charges/{id}", "GET /charges/{id}, DPoP")):
        assert operations[dpop]["dynamodb_calls"] == operations[bearer]["dynamodb_calls"] + 1
        assert operations[dpop]["dynamodb_operations"].get("PutItem", 0) == (
            operations[bearer]["dynamodb_operations"].get("PutItem", 0) + 1)

    # Clients that register themselves (issue 23): a metadata-document client's token request costs
    # an ordinary client's calls while cached, and three more when fetched again (issue 26: the host's
    # budget of refreshes, the deployment's, and the record).
    cimd = results["client_metadata"]
    ordinary, cached, fetched = (cimd[k] for k in ("ordinary public client (demo-spa)", "metadata document, cached",
                                                    "metadata document, fetched"))
    assert cached["dynamodb_operations"] == ordinary["dynamodb_operations"]
    assert fetched["dynamodb_calls"] == ordinary["dynamodb_calls"] + 3
    assert fetched["dynamodb_operations"].get("PutItem", 0) == ordinary["dynamodb_operations"].get("PutItem", 0) + 1
    assert all(positive(f[k]) for f in cimd.values() for k in ("p50_ms", "p95_ms"))

    # Delegation (issue 29): the ID-JAG grant, its IdP's keys cached (client with its user, jti) and fetched (no more
    # DynamoDB calls: the keys come over HTTPS), and a token exchange (the resource's client, the subject token).
    delegation = results["delegation"]
    cached_keys, fetched_keys = (delegation[k] for k in ("ID-JAG grant, IdP keys cached", "ID-JAG grant, IdP keys fetched"))
    assert cached_keys["dynamodb_operations"] == fetched_keys["dynamodb_operations"] == {
        "BatchGetItem": 1, "PutItem": 1}
    assert delegation["token exchange"]["dynamodb_operations"] == {"BatchGetItem": 2}
    # A public device's pending poll (RFC 8628 3.5): the device code's one conditional write, before the client read.
    assert delegation["device-code poll, pending"]["dynamodb_operations"] == {"UpdateItem": 1}
    assert all(positive(f[k]) for f in delegation.values() for k in ("p50_ms", "p95_ms"))
    assert {"DynamoDB calls, ID-JAG grant, IdP keys cached", "DynamoDB calls, token exchange",
            "DynamoDB calls, device-code poll, pending"} <= {t["what"] for t in results["targets"]}
    # OpenID Connect (issue 27): the ID token adds no DynamoDB call; UserInfo is one read; a silent
    # re-authentication answers with a code and no password hash.
    oidc = results["openid_connect"]
    assert oidc["code exchange, openid (ID token)"]["dynamodb_operations"] == oidc["code exchange, no openid"][
        "dynamodb_operations"]
    # An ES256 stack's RS256 ID token: the same calls (both current keys in the one published-keys item).
    assert oidc["code exchange, openid, ES256 stack"]["dynamodb_operations"] == oidc["code exchange, no openid"][
        "dynamodb_operations"]
    assert oidc["userinfo"]["dynamodb_operations"] == {"BatchGetItem": 1}
    assert all(positive(f[k]) for f in oidc.values() for k in ("p50_ms", "cpu_p50_ms"))
    assert {"DynamoDB calls the ID token adds to a code exchange", "DynamoDB calls, userinfo"} <= {
        t["what"] for t in results["targets"]}
    # Second factors (issue 28): a TOTP check's two writes and CPU, a passkey assertion's verification CPU and the
    # calls of a passkey sign-in's storage.
    factors = results["second_factors"]
    assert factors["totp_check"]["dynamodb_operations"] == {"UpdateItem": 2}
    assert all(positive(factors["totp_check"][k]) for k in ("cpu_ms", "own_cpu_us", "code_match_us"))
    assert positive(factors["passkey_assertion"]["verify_cpu_ms"])
    assert factors["passkey_assertion"]["sign_in_dynamodb_operations"] == {"UpdateItem": 2, "GetItem": 1}
    assert "TOTP check (stores.factor_attempts.verify_code" in run.stdout
    # The step through the authorize handler, and what it adds to a password sign-in (figures in the docs).
    added = results["second_factor_step"]["added_to_password_sign_in"]
    assert added["dynamodb_calls"] == 2 and positive(added["cpu_ms"])
    # The code typed beside the password adds no call (issue 28's goal); its CPU is noise around 0 quick.
    assert results["second_factor_step"]["one_post"]["dynamodb_calls"] == 0
    assert results["second_factor_step"]["dynamodb_operations"]["password_code"]["TransactWriteItems"] == 1
    assert "TOTP step added to a password sign-in" in run.stdout
    # The step's CPU with AWS answered from a Stubber (bench/recording.py), as the per-operation CPU is measured.
    stubbed = results["second_factor_step"]["stubbed"]
    assert stubbed["dynamodb_calls"] == 2 and isinstance(stubbed["meets_goal"], bool)
    assert all(positive(results["second_factor_step"]["cpu_ms"][f"stubbed_{name}"]) for name in ("silent", "page", "code"))
    assert "TOTP sign-in step, CPU with AWS answered from a Stubber" in run.stdout

    # SnapStart (issue 22): per API function, the init a restored copy never runs, and what its
    # first request still pays.
    snap = results["snapstart"]
    assert set(snap) == FUNCTIONS - {"rotate_keys", "audit", "console"}  # the console primes nothing (not yet measured)
    for name, figures in snap.items():
        assert all(positive(figures[k]) for k in ("cold_ms", "moved_to_snapshot_ms", "after_restore_ms")), name
        assert figures["primed_routes_ms"] >= 0
        assert abs(figures["moved_to_snapshot_ms"] - figures["primed_routes_ms"] + figures["after_restore_ms"]
                   - figures["cold_ms"]) < 1e-6, name

    # The audit trail (issue 40): recording is measured, and makes no AWS call.
    audit = results["audit"]
    assert positive(audit["event_cpu_us"]) and positive(audit["batch_of_1000_cpu_ms"])
    assert audit["event_aws_calls"] == 0
    assert "Audit trail (docs/audit.md): recording one `token.issued` event" in run.stdout

    size = results["deployment_size"]
    assert set(size["functions"]) == FUNCTIONS
    assert all(positive(f["total_unzipped_bytes"]) and positive(f["total_zipped_bytes"])
               for f in size["functions"].values())
    assert {t["what"] for t in results["targets"]} >= {"client_credentials CPU p50, I/O stubbed (ms)"} | {
        f"warm CPU p50 / reference, {name}" for name in REFERENCE_TARGETED} | {
        f"cold init {name} / floor" for name in FUNCTIONS}
    assert all(isinstance(t["holds"], bool) for t in results["targets"])
    assert "| function | cold init |" in run.stdout and "Targets:" in run.stdout
    assert "| warm CPU p50, I/O stubbed | authgate | reference | ratio |" in run.stdout
