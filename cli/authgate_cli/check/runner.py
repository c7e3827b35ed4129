"""Running a suite: each probe in turn, within one time budget, reporting progress as it goes."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from authgate_cli.check.findings import Finding, ProbeResult, show_request
from authgate_cli.check.probes.base import API_KEY, CannotRun, Context, Probe
from authgate_cli.check.transport import BudgetSpent, TransportError

Progress = Callable[[int, int, Probe, ProbeResult | None], None]

NEEDS = {
    API_KEY: "needs --api-key (the gateway checks the key before the bearer guard sees a token)",
    "mutating": "changes state: needs --mutating with --client-id, --client-secret and --api-key",
}


@dataclass
class Run:
    base_url: str
    mode: dict[str, Any]
    results: list[ProbeResult] = field(default_factory=list)
    started_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    duration_ms: float = 0.0
    requests: int = 0
    stopped: str | None = None  # why the run ended before every probe ran

    @property
    def defects(self) -> int:
        return sum(r.defects for r in self.results)

    @property
    def warnings(self) -> int:
        return sum(r.warnings for r in self.results)

    @property
    def exit_code(self) -> int:
        """0 clean, 1 defects found, 2 the check could not run to the end."""
        if self.stopped is not None:
            return 2
        return 1 if self.defects else 0

    def count(self, outcome: str) -> int:
        return sum(1 for r in self.results if r.outcome == outcome)


def _skip_reason(probe: Probe, ctx: Context) -> str | None:
    if API_KEY in probe.needs and not ctx.options.api_key:
        return NEEDS[API_KEY]
    if "mutating" in probe.needs and not ctx.options.mutating:
        return NEEDS["mutating"]
    return None


def run(ctx: Context, probes: Sequence[Probe], mode: dict[str, Any], progress: Progress | None = None) -> Run:
    """Run `probes` against ctx.base_url. Raises CannotRun when the base URL never answers."""
    outcome = Run(ctx.base_url, mode)
    started = time.monotonic()
    total = len(probes)
    for index, probe in enumerate(probes, 1):
        result = ProbeResult(probe.name, probe.title, probe.group)
        outcome.results.append(result)
        if progress:
            progress(index, total, probe, None)
        if outcome.stopped is not None:
            result.skip_reason = "not run: the time budget was spent"
        elif (reason := _skip_reason(probe, ctx)) is not None:
            result.skip_reason = reason
        else:
            ctx.current = result
            began = time.monotonic()
            try:
                probe.run(ctx)
            except BudgetSpent:
                outcome.stopped = f"stopped after --max-time {ctx.client.budget.seconds:g} s"
                result.skip_reason = "not finished: the time budget was spent"
            except CannotRun:
                raise
            except TransportError as exc:
                if ctx.client.answered == 0:
                    raise CannotRun(f"cannot reach {ctx.base_url}: {exc}") from None
                shown = show_request(exc.request, ctx.secret_headers) if exc.request else None
                result.findings.append(Finding("answers", f"no HTTP answer: {exc}", "defect", shown))
            except Exception as exc:  # a bug of the checker: say so in one line, never a traceback
                raise CannotRun(f"probe {probe.name} failed: {type(exc).__name__}: {exc} "
                                "(a bug in authgate check)") from exc
            finally:
                result.duration_ms = (time.monotonic() - began) * 1000
                ctx.current = None
        if progress:
            progress(index, total, probe, result)
    outcome.duration_ms = (time.monotonic() - started) * 1000
    outcome.requests = ctx.client.sent
    if outcome.stopped is not None:
        not_run = sum(1 for r in outcome.results if r.skip_reason and r.skip_reason.startswith("not "))
        outcome.stopped += f"; {not_run} probe{'s' if not_run != 1 else ''} not run or not finished"
    return outcome
