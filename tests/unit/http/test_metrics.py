"""Error metrics: one EMF line per error response from the App's single exit, none on success."""

from __future__ import annotations

import json

import pytest

from authgate.errors import ApiError
from authgate.http.app import App, Route
from authgate.http.metrics import counted_metrics
from authgate.http.response import Response
from tests.events import event


def fail(code: str):
    def handler(_request):
        raise ApiError(code, "nope")
    return handler


APP = App("metrics-test", {
    ("/ok", "GET"): Route(lambda _r: Response.json(200, {"ok": True})),
    ("/invalid", "GET"): Route(fail("invalid_token")),
    ("/limited", "GET"): Route(fail("rate_limited")),
    ("/storage", "GET"): Route(fail("service_unavailable")),
    ("/pool", "GET"): Route(fail("registration_pool_full")),
})


@pytest.fixture(autouse=True)
def issuer(monkeypatch):
    from authgate import caches

    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    caches.reset()
    yield
    caches.reset()


def emf_lines(text: str) -> list[dict]:
    return [doc for doc in map(json.loads, filter(None, text.splitlines())) if "_aws" in doc]


@pytest.mark.parametrize("resource, status, code, metrics", [
    ("/invalid", 401, "invalid_token", ["ErrorResponses", "InvalidToken"]),
    ("/limited", 429, "rate_limited", ["ErrorResponses", "RateLimited"]),
    ("/storage", 503, "service_unavailable", ["ErrorResponses", "StorageUnavailable", "ServerErrors"]),
    ("/nowhere", 404, "not_found", ["ErrorResponses"]),
    ("/pool", 503, "registration_pool_full", ["ErrorResponses", "ServerErrors", "RegistrationPoolFull"]),
])
def test_an_error_response_is_one_emf_document(capsys, resource, status, code, metrics) -> None:
    assert APP(event(resource=resource))["statusCode"] == status
    (doc,) = emf_lines(capsys.readouterr().out)
    directive = doc["_aws"]["CloudWatchMetrics"]
    assert [{**d, "Dimensions": sorted(map(sorted, d["Dimensions"]))} for d in directive] == [{
        "Namespace": "authgate",
        "Dimensions": [["ErrorCode", "service"], ["service"]],
        "Metrics": [{"Name": name, "Unit": "Count"} for name in metrics],
    }]
    assert {k: v for k, v in doc.items() if k != "_aws"} == {
        "ErrorCode": code, "service": "authgate", "function": "metrics-test", **{name: [1.0] for name in metrics}}


def test_success_emits_no_metric(capsys) -> None:
    assert APP(event(resource="/ok"))["statusCode"] == 200
    assert emf_lines(capsys.readouterr().out) == []


def test_metrics_disabled_by_powertools_switch(capsys, monkeypatch) -> None:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    assert APP(event(resource="/invalid"))["statusCode"] == 401
    assert emf_lines(capsys.readouterr().out) == []


def test_counted_metrics_for_a_redirected_storage_error() -> None:
    assert counted_metrics(302, "temporarily_unavailable") == ["ErrorResponses", "StorageUnavailable"]
