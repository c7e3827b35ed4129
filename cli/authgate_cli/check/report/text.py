"""The readable report: a summary table, then every finding with its request, answer and rule."""

from __future__ import annotations

from authgate_cli.check.findings import Finding, ProbeResult
from authgate_cli.check.runner import Run

_OUTCOME = {"pass": "pass", "warn": "warn", "fail": "FAIL", "skip": "skip"}


def _note(result: ProbeResult) -> str:
    if result.outcome in ("fail", "warn"):
        parts = []
        if result.defects:
            parts.append(f"{result.defects} defect{'s' if result.defects != 1 else ''}")
        if result.warnings:
            parts.append(f"{result.warnings} warning{'s' if result.warnings != 1 else ''}")
        return ", ".join(parts) + (f"; {result.skip_reason}" if result.skip_reason else "")
    if result.skip_reason:
        return result.skip_reason
    return "; ".join(result.notes)


def _finding(number: int, probe: str, finding: Finding) -> list[str]:
    lines = [f"[{number}] {probe}: {finding.rule} ({finding.severity}; {finding.cite})",
             f"    {finding.message}"]
    if finding.request is not None:
        lines.append(f"    request: {finding.request.method} {finding.request.url}")
        lines.extend(f"             {name}: {value}" for name, value in finding.request.headers.items())
        if finding.request.body_bytes is not None:
            lines.append(f"             ({finding.request.body_bytes}-byte body)")
    if finding.seen is not None:
        lines.append(f"    seen:    {finding.seen.status} {finding.seen.content_type or '(no Content-Type)'}")
        lines.extend(f"             {name}: {value}" for name, value in finding.seen.headers.items()
                     if name != "content-type")
        if finding.seen.body_excerpt:
            lines.append(f"             {finding.seen.body_excerpt}")
    return lines


def render(run: Run) -> str:
    mode = "read-only" if not run.mode.get("mutating") else "mutating"
    if run.mode.get("openapi"):
        mode += f", OpenAPI {run.mode['openapi']}"
    heading = (f"authgate check {run.base_url}  ({mode}; {len(run.results)} probes, {run.requests} requests, "
               f"{run.duration_ms / 1000:.1f} s)")
    lines = [heading, ""]
    width = max([len("PROBE"), *(len(r.name) for r in run.results)])
    lines.append(f"{'PROBE':<{width}}  RESULT  NOTE")
    for result in run.results:
        lines.append(f"{result.name:<{width}}  {_OUTCOME[result.outcome]:<6}  {_note(result)}".rstrip())
    findings = [(r.name, f) for r in run.results for f in r.findings]
    if findings:
        lines += ["", "FINDINGS"]
        for number, (probe, finding) in enumerate(findings, 1):
            lines += _finding(number, probe, finding)
    lines.append("")
    failed = run.count("fail")
    verdict = "clean" if run.exit_code == 0 else ("could not finish" if run.exit_code == 2 else "defects found")
    lines.append(f"{verdict}: {run.count('pass')} passed, {failed} failed, {run.count('warn')} warned, "
                 f"{run.count('skip')} skipped; {run.defects} defect{'s' if run.defects != 1 else ''}, "
                 f"{run.warnings} warning{'s' if run.warnings != 1 else ''} (exit {run.exit_code})")
    if run.stopped:
        lines.append(run.stopped)
    return "\n".join(lines) + "\n"
