"""`--json`: the run as one JSON document, schema "authgate-check/1" (docs/check.md, "JSON report").

Members are only ever added under the same schema name; renaming or removing one changes it.
"""

from __future__ import annotations

import json
from typing import Any

from authgate_cli.check.rules import RULES
from authgate_cli.check.runner import Run

SCHEMA = "authgate-check/1"


def document(run: Run) -> dict[str, Any]:
    cited = sorted({f.rule for r in run.results for f in r.findings})
    return {
        "schema": SCHEMA,
        "base_url": run.base_url,
        "started_at": run.started_at,
        "duration_ms": round(run.duration_ms),
        "mode": run.mode,
        "exit_code": run.exit_code,
        "stopped": run.stopped,
        "summary": {"probes": len(run.results), "passed": run.count("pass"), "failed": run.count("fail"),
                    "warned": run.count("warn"), "skipped": run.count("skip"), "defects": run.defects,
                    "warnings": run.warnings, "requests": run.requests},
        "probes": [{
            "name": r.name, "group": r.group, "title": r.title, "outcome": r.outcome,
            "skip_reason": r.skip_reason, "notes": r.notes, "requests": r.requests,
            "duration_ms": round(r.duration_ms), "findings": [f.as_dict() for f in r.findings],
        } for r in run.results],
        "rules": {name: {"summary": RULES[name].summary, "cite": RULES[name].cite} for name in cited},
    }


def render(run: Run) -> str:
    return json.dumps(document(run), indent=2, ensure_ascii=False) + "\n"
