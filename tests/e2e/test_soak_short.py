"""The soak (bench/soak.py, `make soak`) in short: 20 s, 4 workers, its own `authgate serve`.
Zero 5xx, zero contract defects, one winner per raced code, one charge per raced key, and as many
token events in the audit trail as tokens issued (docs/audit.md), the trail intact."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_short_soak_holds_every_invariant(tmp_path: Path) -> None:
    report_path = tmp_path / "soak.json"
    run = subprocess.run([sys.executable, "-m", "bench.soak", "--duration", "20", "--concurrency", "4",
                          "--json", str(report_path)], check=False, cwd=REPO_ROOT, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    report = json.loads(report_path.read_text())
    assert (report["violation_count"], report["server_errors"]) == (0, 0)
    assert report["requests"] > 100 and report["codes_raced"] > 0 and report["idempotency_keys_raced"] > 0
    assert not [status for status in report["statuses"] if int(status) >= 500]
    assert set(report["latency_ms"]) == {"p50", "p95", "p99", "max"}
    assert report["token_events"] == report["tokens_issued"] > 0 and report["trail_intact"] is True
