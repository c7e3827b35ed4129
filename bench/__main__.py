"""`python -m bench [--quick] [--output FILE]`: the performance report; `python -m bench NAME ...`: one benchmark."""

from __future__ import annotations

import importlib
import sys

from bench import REGISTERED


def main(argv: list[str]) -> int:
    names = [a for i, a in enumerate(argv) if not a.startswith("--") and (i == 0 or argv[i - 1] != "--output")]
    if not names:
        from bench import performance_doc, report

        status = report.main(argv)
        if "--quick" not in argv and "--output" not in argv:  # a full run to bench/results.json
            print(f"wrote {performance_doc.write(report.RESULTS).relative_to(performance_doc.ROOT)}")
        return status
    unknown = [n for n in names if n not in REGISTERED]
    if unknown:
        sys.stderr.write(f"unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(REGISTERED)}\n")
        return 2
    status = 0
    for name in names:
        print(f"== {name}", flush=True)
        status |= int(importlib.import_module(REGISTERED[name]).main() or 0)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
