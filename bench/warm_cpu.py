"""The warm CPU comparison with the reference stack alone: `python -m bench warm_cpu`.

The rows of the report's "warm CPU p50, I/O stubbed" table (bench/per_request.py, measured the same
way: 300 requests of each operation, authgate's and the reference stack's samples interleaved), without
the rest of `make bench`: what to run after a change on the token or charges path.
"""

from __future__ import annotations

from bench.per_request import measure
from bench.report import quiet_stdout

ITERATIONS = 300


def main() -> int:
    with quiet_stdout():
        ours, theirs = measure(ITERATIONS, versus_reference_only=True)
    for name, figures in ours.items():
        mine, reference = figures["cpu_ms"]["p50"], theirs[name]["cpu_ms"]["p50"]
        print(f"{name}: {mine:.3f} ms against {reference:.3f} ms, {mine / reference:.2f}x (target <= 1.0x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
