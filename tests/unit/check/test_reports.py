"""The three renderings of a run: the readable report, --json (schema authgate-check/1), --junit.

JUnit XML is read back with junitparser, the library CI report publishers use, and with the
standard library's parser; no output ever holds a credential the run used or received.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from junitparser import Failure, JUnitXml, Skipped

from authgate_cli.check.redaction import body_excerpt, request_headers
from tests.unit.check.checking import check, mutating_args
from tests.unit.check.servers import API_KEY, CLIENT_SECRET, ContractServer, serving

JWS = re.compile(r"eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.")


def test_junit_has_one_testcase_per_probe_and_one_failure_per_defect(capsys, tmp_path):
    path = tmp_path / "check.xml"
    with serving(ContractServer("405-no-allow")) as base:
        result = check(capsys, base, "--api-key", API_KEY, "--quiet", "--json", "--junit", str(path))
    report = result.report
    ET.parse(path)  # well-formed XML
    xml = JUnitXml.fromfile(str(path))
    [suite] = list(xml)
    cases = list(suite)
    assert [c.name for c in cases] == [p["name"] for p in report["probes"]]
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (27, report["summary"]["failed"], 0, 5)
    for case, probe in zip(cases, report["probes"]):
        failures = [r for r in case.result if isinstance(r, Failure)]
        defects = [f for f in probe["findings"] if f["severity"] == "defect"]
        assert [f.type for f in failures] == [f["rule"] for f in defects], case.name
        assert case.is_skipped == (probe["outcome"] == "skip")
        assert case.is_passed == (probe["outcome"] == "pass")
        assert case.classname == f"authgate.check.{probe['group']}"
    failing = next(c for c in cases if c.name == "token.wrong-method")
    [failure] = failing.result
    assert failure.message == "allow-on-405: a 405 without Allow"
    assert "rule: allow-on-405 (contract 7.5; RFC 9110 10.2.1, 15.5.6)" in failure.text
    assert "request: GET http" in failure.text and "seen: 405 application/json" in failure.text
    skipped = next(c for c in cases if c.name == "mutating.token")
    assert isinstance(skipped.result[0], Skipped) and skipped.result[0].message.startswith("changes state")


def test_junit_stays_well_formed_with_control_characters_in_an_answer(tmp_path):
    from authgate_cli.check.findings import Finding, ProbeResult, Seen
    from authgate_cli.check.report import junit
    from authgate_cli.check.runner import Run

    run = Run("http://x.test", {"mutating": False})
    result = ProbeResult("route.unknown", "t", "route")
    result.findings.append(Finding("error-body-readable", "bad \x00 body\x1b", "defect",
                                   seen=Seen(500, "text/plain", {}, "\x00\x07 nul")))
    run.results.append(result)
    path = tmp_path / "x.xml"
    path.write_text(junit.render(run), encoding="utf-8")
    [suite] = list(JUnitXml.fromfile(str(path)))
    [case] = list(suite)
    assert case.result[0].message == "error-body-readable: bad \ufffd body\ufffd"


def test_the_json_report_schema(capsys):
    with serving(ContractServer("missing-code")) as base:
        result = check(capsys, base, "--api-key", API_KEY, "--quiet", "--json")
    report = result.report
    assert list(report) == ["schema", "base_url", "started_at", "duration_ms", "mode", "exit_code", "stopped",
                            "summary", "probes", "rules"]
    assert report["schema"] == "authgate-check/1" and report["base_url"] == base and report["stopped"] is None
    assert report["mode"] == {"mutating": False, "openapi": None, "api_key": True, "user_headers": []}
    assert list(report["summary"]) == ["probes", "passed", "failed", "warned", "skipped", "defects", "warnings",
                                       "requests"]
    summary = report["summary"]
    assert summary["probes"] == summary["passed"] + summary["failed"] + summary["warned"] + summary["skipped"] == 27
    probe = report["probes"][0]
    assert list(probe) == ["name", "group", "title", "outcome", "skip_reason", "notes", "requests", "duration_ms",
                           "findings"]
    finding = result.findings()[0]
    assert list(finding) == ["rule", "severity", "cite", "message", "request", "seen", "probe"]
    assert list(finding["request"]) == ["method", "url", "headers", "body_bytes"]
    assert list(finding["seen"]) == ["status", "content_type", "headers", "body_excerpt"]
    assert set(report["rules"]) == {f["rule"] for f in result.findings()}
    assert all(set(r) == {"summary", "cite"} for r in report["rules"].values())


def test_the_readable_report(capsys):
    with serving(ContractServer("405-no-allow")) as base:
        result = check(capsys, base, "--api-key", API_KEY, "--quiet")
    lines = result.out.splitlines()
    assert re.fullmatch(rf"authgate check {re.escape(base)}  \(read-only; 27 probes, \d+ requests, [\d.]+ s\)",
                        lines[0])
    assert lines[2] == "PROBE                         RESULT  NOTE"
    assert "token.wrong-method            FAIL    1 defect" in lines
    assert "discovery.metadata            pass" in lines
    start = lines.index("FINDINGS (each answer once, then every rule it breaks)")
    block = lines[start + 1:lines.index("[2] revocation.wrong-method")]
    assert block[0] == "[1] token.wrong-method"
    assert block[1] == f"    request: GET {base}/oauth/token"
    assert block[2].startswith("             x-request-id: authgate-check-")
    assert block[3] == "    seen:    405 application/json"
    assert block[-2:] == ["    broken:  allow-on-405 (defect; contract 7.5; RFC 9110 10.2.1, 15.5.6)",
                          "               a 405 without Allow"]
    assert lines[-1].startswith("defects found: 18 passed, 4 failed, 0 warned, 5 skipped; 4 defects, 0 warnings")
    assert lines[-1].endswith("(exit 1)") and result.code == 1


@pytest.mark.slow
def test_no_output_holds_a_credential(capsys, tmp_path):
    """Findings that show requests with credentials and answers with tokens: every one masked."""
    path = tmp_path / "check.xml"
    with serving(ContractServer("token-cacheable")) as base:
        text = check(capsys, base, *mutating_args())
        doc = check(capsys, base, *mutating_args(), "--json", "--junit", str(path))
    token_finding = next(f for f in doc.findings() if f["rule"] == "token-response")
    assert token_finding["request"]["headers"]["authorization"] == "[redacted]"
    assert '"access_token":"[redacted]"' in token_finding["seen"]["body_excerpt"]
    outputs = [text.out, text.err, doc.out, doc.err, path.read_text(encoding="utf-8")]
    for output in outputs:
        assert CLIENT_SECRET not in output and API_KEY not in output
        assert not JWS.search(output)
    assert "authorization: [redacted]" in text.out


def test_redaction_of_headers_and_excerpts():
    assert request_headers([("Authorization", "Bearer x"), ("X-Api-Key", "k"), ("Cookie", "a=b"),
                            ("X-Custom", "s"), ("Accept", "*/*")], frozenset({"x-custom"})) == {
        "authorization": "[redacted]", "x-api-key": "[redacted]", "cookie": "[redacted]",
        "x-custom": "[redacted]", "accept": "*/*"}
    token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"
    assert body_excerpt(f'{{"access_token": "{token}", "code": "x", "d": "priv"}}'.encode()) == \
        '{"access_token":"[redacted]","code":"x","d":"[redacted]"}'
    assert body_excerpt(f'not json "refresh_token": "r1" and {token}'.encode()) == \
        'not json "refresh_token": "[redacted]" and [redacted]'
    assert body_excerpt(b"x" * 400).endswith("\u2026") and len(body_excerpt(b"x" * 400)) == 300
