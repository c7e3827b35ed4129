"""limits.degraded: a limiter that fails open says so once, as a warning line and a RateLimiterUnavailable metric."""

from __future__ import annotations

import json

import pytest

from authgate.limits.degraded import record
from tests.log_hygiene import LogCapture


def test_the_warning_and_the_emf_metric(capsys: pytest.CaptureFixture[str]) -> None:
    with LogCapture() as capture:
        record("api", "ThrottlingException")
    (line,) = [json.loads(x) for x in capture.lines]
    assert (line["level"], line["message"], line["limiter"], line["internal"]) == (
        "WARNING", "rate limiter unavailable; request admitted (fail open)", "api", "ThrottlingException")
    emf = [json.loads(x) for x in capsys.readouterr().out.splitlines() if '"_aws"' in x]
    assert len(emf) == 1 and emf[0]["RateLimiterUnavailable"] == [1.0] and emf[0]["limiter"] == "api"
    assert emf[0]["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "authgate"


def test_without_a_namespace_the_log_line_stands_alone(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("POWERTOOLS_METRICS_NAMESPACE", raising=False)
    with LogCapture() as capture:
        record("auth-failures", "timeout")
    assert len(capture.lines) == 1
    assert '"_aws"' not in capsys.readouterr().out
