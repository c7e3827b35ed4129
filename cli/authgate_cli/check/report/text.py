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


def _group(number: int, probe: str, findings: list[Finding]) -> list[str]:
    """One answer and every rule it breaks: the request and what was seen are shown once."""
    first = findings[0]
    lines = [f"[{number}] {probe}"]
    if first.request is not None:
        lines.append(f"    request: {first.request.method} {first.request.url}")
        lines.extend(f"             {name}: {value}" for name, value in first.request.headers.items())
        if first.request.body_bytes is not None:
            lines.append(f"             ({first.request.body_bytes}-byte body)")
    if first.seen is not None:
        lines.append(f"    seen:    {first.seen.status} {first.seen.content_type or '(no Content-Type)'}")
        lines.extend(f"             {name}: {value}" for name, value in first.seen.headers.items()
                     if name != "content-type")
        if first.seen.body_excerpt:
            lines.append(f"             {first.seen.body_excerpt}")
    for index, finding in enumerate(findings):
        label = "    broken:  " if index == 0 else "             "
        lines.append(f"{label}{finding.rule} ({finding.severity}; {finding.cite})")
        lines.append(f"               {finding.message}")
    return lines


def _groups(run: Run) -> list[tuple[str, list[Finding]]]:
    """Findings of one probe about the same exchange, together, in the order they were found."""
    groups: list[tuple[str, list[Finding]]] = []
    for result in run.results:
        for finding in result.findings:
            if groups and groups[-1][0] == result.name and finding.request is not None and \
                    (groups[-1][1][0].request, groups[-1][1][0].seen) == (finding.request, finding.seen):
                groups[-1][1].append(finding)
            else:
                groups.append((result.name, [finding]))
    return groups


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
    groups = _groups(run)
    if groups:
        lines += ["", "FINDINGS (each answer once, then every rule it breaks)"]
        for number, (probe, findings) in enumerate(groups, 1):
            lines += _group(number, probe, findings)
    lines.append("")
    failed = run.count("fail")
    verdict = "clean" if run.exit_code == 0 else ("could not finish" if run.exit_code == 2 else "defects found")
    lines.append(f"{verdict}: {run.count('pass')} passed, {failed} failed, {run.count('warn')} warned, "
                 f"{run.count('skip')} skipped; {run.defects} defect{'s' if run.defects != 1 else ''}, "
                 f"{run.warnings} warning{'s' if run.warnings != 1 else ''} (exit {run.exit_code})")
    if run.stopped:
        lines.append(run.stopped)
    return "\n".join(lines) + "\n"
