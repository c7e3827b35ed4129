"""Soak: a bounded local load through `authgate serve` on loopback, stopping by itself.

    python -m bench.soak [--duration 180] [--concurrency 8] [--json report.json]

Starts its own `authgate serve` on a free 127.0.0.1 port (demo seed plus one premium-plan API
key per worker, so the usage plan's 10 rps is not what is measured; in-Lambda limits raised
for the same reason), then runs concurrent workers doing mixed flows until the duration is up:
client_credentials + charges create/get/list; login form + code exchange (half the time raced
by two threads: exactly one winner per code, whose tokens the replay revokes; else refresh,
introspect and revoke); one Idempotency-Key posted by
three threads at once (exactly one charge per key); and error cases (unknown client, invalid
bearer token, 404, 405). Every failure response goes through authgate_cli.check.read_error.

Fails (exit 1) on any 5xx, any contract defect, an unexpected status, two winners for a code
or two charges for a key, and when the server's audit trail (docs/audit.md) does not hold one
token event (token.issued, token.refreshed) per token the token endpoint issued, or does not
verify. Reports request count, throughput, counts by status and error code, latency percentiles
(p50/p95/p99) overall and per route, and the tokens issued beside the token events recorded.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests

from authgate_cli.local.seed import DEMO_SEED
from tests.contract import ContractViolation
from tests.e2e.flows import SPA, WEB, Flows

REPO_ROOT = Path(__file__).resolve().parents[1]
RAISED_LIMITS = {"AUTHGATE_RATE_TENANT": "10000", "AUTHGATE_RATE_CLIENT": "10000",
                 "AUTHGATE_RATE_IP": "10000", "AUTHGATE_AUTH_FAILURE_CLIENT": "100000",
                 "AUTHGATE_AUTH_FAILURE_IP": "100000"}


# ---------------------------------------------------------------- the server
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(workdir: Path, workers: int) -> tuple[subprocess.Popen[bytes], str, Path]:
    seed = workdir / "soak_seed.json"
    seed.write_text(json.dumps({
        "include": [str(DEMO_SEED)],
        "api_keys": [{"value": f"soak-key-{i}", "usage_plan": "PremiumUsagePlan"} for i in range(workers)],
        # One user per worker: the users store counts parallel sign-ins of one user as attempts
        # in flight (a burst beyond FREE_ATTEMPTS is throttled, by design against guessing).
        "users": [{"tenant_id": "demo", "username": f"soak-user-{i}", "password": f"soak-password-{i}"}
                  for i in range(workers)],
    }))
    port, log_path = free_port(), workdir / "serve.log"
    script = Path(sys.executable).with_name("authgate")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "authgate_cli.main"]
    env = {**os.environ, **RAISED_LIMITS, "AUTHGATE_STATE_DIR": str(workdir / "state"), "PYTHONUNBUFFERED": "1"}
    env.pop("PORT", None)
    with open(log_path, "wb") as log:
        process = subprocess.Popen([*command, "serve", "--host", "127.0.0.1", "--port", str(port),
                                    "--callback-port", "off", "--seed", str(seed)],
                                   cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"authgate serve exited early:\n{log_path.read_text(errors='replace')[-3000:]}")
        if "authgate is running on" in log_path.read_text(errors="replace"):
            try:
                requests.get(f"{base_url}/.well-known/jwks.json", timeout=5)
                return process, base_url, log_path
            except requests.RequestException:
                pass
        time.sleep(0.2)
    stop_server(process)
    raise RuntimeError("authgate serve was not ready in 90 s")


def stop_server(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


# ---------------------------------------------------------------- measurements
def route_of(method: str, url: str) -> str:
    path = urlsplit(url).path
    if path.startswith("/charges/"):
        path = "/charges/{id}"
    return f"{method} {path}"


@dataclass
class Stats:
    lock: threading.Lock = field(default_factory=threading.Lock)
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: Counter[int] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)
    codes_raced: int = 0
    keys_raced: int = 0
    tokens_issued: int = 0

    def observe(self, response: requests.Response) -> None:
        from authgate_cli.check import read_error

        route = route_of(response.request.method or "?", response.request.url or "")
        reading = read_error(response.status_code, list(response.headers.items()), response.content,
                             api=not route.split(" ", 1)[1].startswith(("/oauth/authorize", "/problems/")))
        with self.lock:
            self.latencies[route].append(response.elapsed.total_seconds() * 1000)
            self.statuses[response.status_code] += 1
            if reading.is_failure:
                self.codes[reading.code or "?"] += 1
            if response.status_code >= 500:
                self.violations.append(f"{response.status_code} on {route}: {response.text[:200]}")
            if route == "POST /oauth/token" and response.status_code == 200:
                self.tokens_issued += 1

    def violate(self, message: str) -> None:
        with self.lock:
            self.violations.append(message)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return round(ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))], 1)


# ---------------------------------------------------------------- flows
def expect(stats: Stats, response: requests.Response, *statuses: int) -> requests.Response:
    if response.status_code not in statuses:
        stats.violate(f"{route_of(response.request.method or '?', response.request.url or '')}: "
                      f"{response.status_code} not in {statuses}: {response.text[:200]}")
    return response


def charges_flow(flows: Flows, stats: Stats) -> None:
    token = expect(stats, flows.client_credentials(), 200).json()["access_token"]
    created = expect(stats, flows.create_charge(token, amount=random.randint(1, 10_000)), 201)
    expect(stats, flows.get_charge(token, created.json()["id"]), 200)
    expect(stats, flows.list_charges(token), 200)


def code_flow(flows: Flows, stats: Stats, racer: Flows, race: bool, user: int) -> None:
    client = random.choice([WEB, SPA])
    code, verifier = flows.authorize(client, f"soak-user-{user}", f"soak-password-{user}")
    if race:
        # Two clients exchange one code at once: exactly one wins (RFC 6749 4.1.2), and the
        # replay revokes what the winner got, so its refresh token is then invalid_grant.
        stats.codes_raced += 1
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(lambda f: f.exchange(code, verifier, client), (flows, racer)))
        for r in results:
            expect(stats, r, 200, 400)
        winners = [r for r in results if r.status_code == 200]
        if len(winners) != 1:
            stats.violate(f"code exchanged {len(winners)} times")
            return
        expect(stats, flows.refresh(winners[0].json()["refresh_token"], client), 400)
        return
    tokens = expect(stats, flows.exchange(code, verifier, client), 200).json()
    rotated = expect(stats, flows.refresh(tokens["refresh_token"], client), 200).json()
    expect(stats, flows.introspect(rotated["access_token"], client), 200)
    expect(stats, flows.revoke(rotated["refresh_token"], client, hint="refresh_token"), 200)


def idempotency_flow(flows: Flows, stats: Stats, racers: list[Flows]) -> None:
    token = expect(stats, flows.client_credentials(), 200).json()["access_token"]
    key, amount = f"soak-{uuid.uuid4()}", random.randint(1, 10_000)
    stats.keys_raced += 1
    with ThreadPoolExecutor(len(racers)) as pool:
        results = list(pool.map(lambda f: f.create_charge(token, key, amount), racers))
    for r in results:
        expect(stats, r, 200, 201, 409)
    ids = {r.json()["id"] for r in results if r.status_code in (200, 201)}
    final = expect(stats, flows.create_charge(token, key, amount), 200, 201, 409)
    if final.status_code == 409:  # the first attempt is still running: wait its Retry-After
        time.sleep(float(final.headers.get("Retry-After", "1")))
        final = expect(stats, flows.create_charge(token, key, amount), 200, 201)
    if final.status_code in (200, 201):
        ids.add(final.json()["id"])
    if len(ids) != 1:
        stats.violate(f"Idempotency-Key {key} made {len(ids)} charges")


def error_flow(flows: Flows, stats: Stats) -> None:
    expect(stats, flows.client_credentials("soak-nobody", "wrong-secret"), 401)
    expect(stats, flows.list_charges("not.a.token"), 401)
    expect(stats, flows.request("GET", "/no/such/path"), 404)
    expect(stats, flows.request("DELETE", "/oauth/token"), 405)


def worker(index: int, base_url: str, stop_at: float, stats: Stats) -> None:
    def hook(response: requests.Response) -> None:
        stats.observe(response)

    key = f"soak-key-{index}"
    flows = Flows(base_url, on_response=hook, api_key=key)
    racers = [Flows(base_url, on_response=hook, api_key=key) for _ in range(3)]
    rng = random.Random(index)
    try:
        while time.monotonic() < stop_at:
            choice = rng.choices(["charges", "code", "idempotency", "errors"], weights=[4, 2, 2, 1])[0]
            try:
                if choice == "charges":
                    charges_flow(flows, stats)
                elif choice == "code":
                    code_flow(flows, stats, racers[0], race=rng.random() < 0.5, user=index)
                elif choice == "idempotency":
                    idempotency_flow(flows, stats, racers)
                else:
                    error_flow(flows, stats)
            except ContractViolation as exc:
                stats.violate(f"contract defect: {exc}"[:500])
            except (requests.RequestException, KeyError, ValueError, AssertionError) as exc:
                stats.violate(f"{choice}: {type(exc).__name__}: {exc}"[:500])
    finally:
        for f in (flows, *racers):
            f.close()


# ---------------------------------------------------------------- the audit trail
def trail_of(workdir: Path) -> Path:
    """The running server's audit trail directory, as its state file records it (read before it stops)."""
    (state,) = (workdir / "state" / "servers").glob("*.json")
    return Path(json.loads(state.read_text())["env"]["AUTHGATE_AUDIT_DIR"])


def audit_counts(trail: Path, stats: Stats) -> dict[str, Any]:
    """The token events the stopped server's trail holds beside the tokens issued, and whether it verifies."""
    from authgate.audit_trail.directory import DirectoryStore
    from authgate.audit_trail.reader import events, verify_trail
    from authgate.audit_trail.trail import Trail

    store = DirectoryStore(trail)
    kept = Trail(store, store.mac())
    token_events = sum(1 for e in events(kept) if e["action"] in ("token.issued", "token.refreshed"))
    findings = [f.line() for f in verify_trail(kept).findings]
    if token_events != stats.tokens_issued:
        stats.violate(f"{stats.tokens_issued} tokens issued, {token_events} token events in the audit trail")
    for finding in findings:
        stats.violate(f"audit trail: {finding}")
    return {"tokens_issued": stats.tokens_issued, "token_events": token_events, "trail_intact": not findings}


# ---------------------------------------------------------------- main
def report(stats: Stats, elapsed: float, duration: float, concurrency: int) -> dict[str, Any]:
    everything = [v for values in stats.latencies.values() for v in values]
    return {
        "duration_s": round(elapsed, 1), "requested_duration_s": duration, "concurrency": concurrency,
        "requests": len(everything), "throughput_rps": round(len(everything) / elapsed, 1) if elapsed else 0,
        "statuses": {str(k): v for k, v in sorted(stats.statuses.items())},
        "error_codes": dict(stats.codes.most_common()),
        "latency_ms": {"p50": percentile(everything, 50), "p95": percentile(everything, 95),
                       "p99": percentile(everything, 99), "max": round(max(everything, default=0), 1)},
        "routes": {route: {"count": len(v), "p50": percentile(v, 50), "p95": percentile(v, 95),
                           "p99": percentile(v, 99)} for route, v in sorted(stats.latencies.items())},
        "codes_raced": stats.codes_raced, "idempotency_keys_raced": stats.keys_raced,
        "server_errors": sum(v for k, v in stats.statuses.items() if k >= 500),
        "violations": stats.violations[:50], "violation_count": len(stats.violations),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=180.0, help="seconds of load (default 180)")
    parser.add_argument("--concurrency", type=int, default=8, help="concurrent workers (default 8)")
    parser.add_argument("--json", type=Path, help="also write the report to this file")
    args = parser.parse_args(argv)
    if args.duration <= 0 or not 1 <= args.concurrency <= 64:
        parser.error("--duration must be > 0 and --concurrency 1..64")
    with tempfile.TemporaryDirectory(prefix="authgate-soak-") as tmp:
        process, base_url, _log = start_server(Path(tmp), args.concurrency)
        try:
            stats = Stats()
            started = time.monotonic()
            stop_at = started + args.duration
            threads = [threading.Thread(target=worker, args=(i, base_url, stop_at, stats), daemon=True)
                       for i in range(args.concurrency)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=args.duration + 120)
            elapsed = time.monotonic() - started
            trail = trail_of(Path(tmp))
        finally:
            stop_server(process)  # the server keeps the last audit lines as it stops
        audited = audit_counts(trail, stats)
        result = {**report(stats, elapsed, args.duration, args.concurrency), **audited}
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    ok = result["violation_count"] == 0 and result["server_errors"] == 0 and result["requests"] > 0
    print(f"soak {'passed' if ok else 'FAILED'}: {result['requests']} requests in {result['duration_s']} s, "
          f"p50 {result['latency_ms']['p50']} ms, p95 {result['latency_ms']['p95']} ms, "
          f"p99 {result['latency_ms']['p99']} ms, {result['violation_count']} violations", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
