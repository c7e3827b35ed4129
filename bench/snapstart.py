"""What SnapStart (template parameter SnapStart=on) would move out of a cold start, per API function.

From the cold-init measurement (bench.cold: a fresh interpreter per run, the handler imported,
the AWS clients built, the first request served):
- before the snapshot: interpreter start and the handler's import, plus the route modules a
  SnapStart init imports ahead (`App.prime`, measured here in a fresh interpreter): a restored
  copy never runs them;
- after the restore: building the AWS clients and serving the first request. `authgate.snapstart`
  forgets every client after a restore (credentials and connections must not come from a
  snapshot), so the first request of each restored copy still pays these.
The restore itself is Lambda's and cannot be measured here.

`python -m bench snapstart` prints the table; `make bench` records it in bench/results.json.
"""

from __future__ import annotations

import json
import statistics
import subprocess
from typing import Any

from bench.cold import ROOT, _child_env, interpreter

API_FUNCTIONS = ("authorize", "token", "jwks", "charges")
PRIME = """
import importlib.util, json, sys, time
spec = importlib.util.spec_from_file_location("app", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
started = time.perf_counter()
module.handler.prime()
print(json.dumps({"prime_ms": (time.perf_counter() - started) * 1e3}), flush=True)
import os; os._exit(0)
"""


def prime_ms(function: str, runs: int) -> float:
    """Median time of importing a function's lazily loaded route modules, in a fresh interpreter."""
    python, _ = interpreter()
    app = ROOT / "functions" / function / "app.py"
    times = []
    for _ in range(runs + 1):  # the first run writes bytecode caches
        done = subprocess.run([python, "-c", PRIME, str(app)], env=_child_env({}), capture_output=True,
                              text=True, check=True, timeout=120)
        times.append(json.loads(done.stdout.strip().splitlines()[-1])["prime_ms"])
    return statistics.median(times[1:])


def from_cold(cold_init: dict[str, Any], runs: int) -> dict[str, Any]:
    out = {}
    for name in API_FUNCTIONS:
        f = cold_init["functions"][name]
        primed = prime_ms(name, runs)
        before = f["cold_ms"] - f["clients_ms"] - f["first_request_ms"]
        out[name] = {"cold_ms": f["cold_ms"], "moved_to_snapshot_ms": before + primed, "primed_routes_ms": primed,
                     "after_restore_ms": f["clients_ms"] + f["first_request_ms"],
                     "clients_ms": f["clients_ms"], "first_request_ms": f["first_request_ms"]}
    return out


def render(figures: dict[str, Any]) -> list[str]:
    lines = [("| function | cold init today | moved before the snapshot (of which primed routes) | "
              "still paid after a restore: clients + first request |"), "|---|---|---|---|"]
    for name, f in figures.items():
        lines.append(f"| {name} | {f['cold_ms']:.0f} ms | {f['moved_to_snapshot_ms']:.0f} ms "
                     f"({f['primed_routes_ms']:.0f} ms) | {f['after_restore_ms']:.0f} ms "
                     f"({f['clients_ms']:.0f} + {f['first_request_ms']:.0f}) |")
    return lines


def main() -> int:
    from bench import cold

    figures = from_cold(cold.measure(3), runs=3)
    print("\n".join(render(figures)))
    return 0
