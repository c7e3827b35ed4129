"""Running `authgate check` in-process for the tests: the real command, its real HTTP client."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from authgate_cli.main import main
from tests.unit.check.servers import API_KEY, CLIENT_ID, CLIENT_SECRET


@dataclass
class Checked:
    code: int
    out: str
    err: str

    @property
    def report(self) -> dict[str, Any]:
        return json.loads(self.out)

    def findings(self, severity: str | None = None) -> list[dict[str, Any]]:
        return [dict(f, probe=p["name"]) for p in self.report["probes"] for f in p["findings"]
                if severity is None or f["severity"] == severity]

    def rules(self, severity: str = "defect") -> set[str]:
        return {f["rule"] for f in self.findings(severity)}

    def outcomes(self) -> dict[str, str]:
        return {p["name"]: p["outcome"] for p in self.report["probes"]}


def check(capsys: pytest.CaptureFixture[str], *args: str) -> Checked:
    capsys.readouterr()
    code = main(["check", *args])
    captured = capsys.readouterr()
    return Checked(code, captured.out, captured.err)


def mutating_args() -> list[str]:
    return ["--api-key", API_KEY, "--mutating", "--client-id", CLIENT_ID, "--client-secret", CLIENT_SECRET]
