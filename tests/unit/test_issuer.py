"""authgate.issuer: the issuer (RFC 8414 2), configured or derived from API Gateway, and problem type URIs."""

from __future__ import annotations

import pytest

from authgate import caches
from authgate.http.request import Request
from authgate.issuer import base_url, problem_type
from tests.events import event


def test_the_configured_issuer_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTHGATE_ISSUER", "https://auth.example.com")
    caches.reset()
    req = Request.from_event(event(domain="abc.execute-api.example", stage="prod"))
    assert base_url(req) == "https://auth.example.com"
    assert problem_type(req, "invalid_token") == "https://auth.example.com/problems/invalid_token"


def test_without_one_it_is_the_gateways_domain_and_stage(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUTHGATE_ISSUER", raising=False)
    caches.reset()
    assert base_url(Request.from_event(event(domain="abc.execute-api.example", stage="prod"))) == (
        "https://abc.execute-api.example/prod")
    assert base_url(Request.from_event(event(domain="", stage=""))) == ""
    assert base_url(None) == ""


def test_a_misconfigured_deployment_still_renders_its_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTHGATE_ISSUER", "http://insecure.example")
    monkeypatch.setenv("AUTHGATE_STAGE", "production")
    caches.reset()
    req = Request.from_event(event(domain="abc.execute-api.example", stage="prod"))
    assert problem_type(req, "internal_error") == "https://abc.execute-api.example/prod/problems/internal_error"
