"""docs/check.md documents every rule (by its stable name) and every probe the command runs."""

from __future__ import annotations

from pathlib import Path

from authgate_cli.check.probes import authgate_suite
from authgate_cli.check.probes.base import Options
from authgate_cli.check.rules import RULES

DOC = (Path(__file__).resolve().parents[3] / "docs" / "check.md").read_text(encoding="utf-8")


def test_every_rule_has_a_row_in_the_rules_tables():
    rows = {line.split("|")[1].strip().strip("`") for line in DOC.splitlines() if line.startswith("| `")}
    assert set(RULES) - {"expected-status", "expected-code", "negative-request-refused", "status-documented"} <= rows
    for name in ("expected-status", "expected-code", "negative-request-refused", "status-documented"):
        assert f"`{name}`" in DOC


def test_every_probe_is_described():
    for probe in authgate_suite(Options(), "r"):
        assert f"`{probe.name}`" in DOC, probe.name
