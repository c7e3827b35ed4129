#!/usr/bin/env python3
"""Write docs/performance.md from the committed bench/results.json, measuring nothing (`make bench` measures)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.performance_doc import write

if __name__ == "__main__":
    print(f"wrote {write().relative_to(ROOT)}")
