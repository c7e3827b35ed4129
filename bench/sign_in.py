"""The cost of one sign-in: scrypt at the stored cost (stores.users, N=2^17, r=8, p=1, 128 MiB).

A sign-in is one `check_password` (and the first one after a cost raise, one `hash_password`
more). Figures: median and best wall time of `check_password` over a few runs, and the cost the
previous parameters (N=2^14) had, for comparison. CPU-bound: on Lambda the time scales with the
function's share of a vCPU (MemorySize 512 MiB is about 0.3 vCPU), so the deployed figure is
larger than a laptop's. Run: `python -m bench sign_in`.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

RUNS = 5


def _timed(fn: Any, runs: int) -> dict[str, float]:
    """Wall and CPU milliseconds per call (median, best): CPU is what a shared machine does not inflate."""
    fn()  # warm: the first call allocates the 128 MiB
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - start) * 1e3)
        cpu.append((time.process_time() - start_cpu) * 1e3)
    return {"median": statistics.median(wall), "best": min(wall), "cpu_median": statistics.median(cpu)}


def measure(runs: int = RUNS) -> dict[str, Any]:
    from authgate.users.passwords import SCRYPT_N, SCRYPT_P, SCRYPT_R, check_password, hash_password

    current = hash_password("a sign-in password")
    previous = hash_password("a sign-in password", n=2**14)
    return {"n": SCRYPT_N, "r": SCRYPT_R, "p": SCRYPT_P, "memory_mib": 128 * SCRYPT_N * SCRYPT_R * SCRYPT_P // 2**20,
            "check_password_ms": _timed(lambda: check_password("a sign-in password", current), runs),
            "previous_n_2_14_ms": _timed(lambda: check_password("a sign-in password", previous), runs), "runs": runs}


def main() -> int:
    m = measure()
    c, p = m["check_password_ms"], m["previous_n_2_14_ms"]
    print(f"sign-in (scrypt N={m['n']} r={m['r']} p={m['p']}, {m['memory_mib']} MiB): wall median {c['median']:.0f} ms, "
          f"best {c['best']:.0f} ms, CPU median {c['cpu_median']:.0f} ms over {m['runs']} runs; N=2^14: wall median "
          f"{p['median']:.0f} ms, CPU median {p['cpu_median']:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
