"""`--junit FILE`: JUnit XML as CI servers read it: one testcase per probe, one failure per defect.

Warnings go to the testcase's system-out (they do not fail a build); a skipped probe is
<skipped> with its reason, never a pass.
"""

from __future__ import annotations

import re
import socket
import xml.etree.ElementTree as ET

from authgate_cli.check.findings import Finding
from authgate_cli.check.runner import Run

# XML 1.0 2.2: characters a document may not contain at all, even escaped (an answer's excerpt may).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _details(finding: Finding) -> str:
    lines = [finding.message, f"rule: {finding.rule} ({finding.cite})"]
    if finding.request is not None:
        lines.append(f"request: {finding.request.method} {finding.request.url}")
        lines += [f"  {name}: {value}" for name, value in finding.request.headers.items()]
    if finding.seen is not None:
        lines.append(f"seen: {finding.seen.status} {finding.seen.content_type}")
        lines += [f"  {name}: {value}" for name, value in finding.seen.headers.items()]
        lines.append(f"  {finding.seen.body_excerpt}")
    return "\n".join(lines)


def render(run: Run) -> str:
    seconds = f"{run.duration_ms / 1000:.3f}"
    suites = ET.Element("testsuites", name="authgate check", tests=str(len(run.results)),
                        failures=str(run.count("fail")), errors="0", time=seconds)
    suite = ET.SubElement(suites, "testsuite", name=_xml(f"authgate check {run.base_url}"), tests=str(len(run.results)),
                          failures=str(run.count("fail")), errors="0", skipped=str(run.count("skip")),
                          time=seconds, timestamp=run.started_at, hostname=socket.gethostname())
    for result in run.results:
        case = ET.SubElement(suite, "testcase", name=result.name, classname=f"authgate.check.{result.group}",
                             time=f"{result.duration_ms / 1000:.3f}")
        for finding in (f for f in result.findings if f.severity == "defect"):
            failure = ET.SubElement(case, "failure", message=_xml(f"{finding.rule}: {finding.message}"),
                                    type=finding.rule)
            failure.text = _xml(_details(finding))
        if result.outcome == "skip":
            ET.SubElement(case, "skipped", message=_xml(result.skip_reason or ""))
        extra = [f"warning {_details(f)}" for f in result.findings if f.severity == "warning"] + result.notes
        if extra:
            ET.SubElement(case, "system-out").text = _xml("\n\n".join(extra))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
