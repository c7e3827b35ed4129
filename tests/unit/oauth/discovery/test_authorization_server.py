"""oauth.discovery.authorization_server (RFC 8414 2): the authorization server's metadata follows the deployment's settings."""

from __future__ import annotations

import pytest

from authgate import caches
from authgate.clients.model import AUTH_METHODS
from authgate.errors import ApiError
from authgate.http.request import Request
from authgate.oauth.discovery.authorization_server import (
    ASSERTION_ALGORITHMS,
    get_metadata,
    metadata,
)
from authgate.oauth.token import client_assertion
from tests.events import event

ISSUER = "https://auth.example.com"


def test_endpoints_hang_off_the_issuer_and_methods_are_the_registrable_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUTHGATE_PASSWORD_GRANT", raising=False)
    caches.reset()
    doc = metadata(ISSUER)
    assert (doc["issuer"], doc["token_endpoint"], doc["pushed_authorization_request_endpoint"]) == (
        ISSUER, ISSUER + "/oauth/token", ISSUER + "/oauth/par")
    assert doc["token_endpoint_auth_methods_supported"] == list(AUTH_METHODS)
    assert doc["grant_types_supported"] == ["authorization_code", "refresh_token", "client_credentials",
        "urn:ietf:params:oauth:grant-type:token-exchange",
        "urn:ietf:params:oauth:grant-type:jwt-bearer", "urn:ietf:params:oauth:grant-type:device_code",
        "urn:openid:params:grant-type:ciba"]
    assert (doc["require_pushed_authorization_requests"], doc["code_challenge_methods_supported"]) == (False, ["S256"])
    assert set(ASSERTION_ALGORITHMS) == set(client_assertion.ALGORITHMS)


def test_the_password_grant_and_required_par_show_when_enabled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTHGATE_PASSWORD_GRANT", "true")
    monkeypatch.setenv("AUTHGATE_REQUIRE_PAR", "true")
    caches.reset()
    doc = metadata(ISSUER)
    assert ("password" in doc["grant_types_supported"], doc["require_pushed_authorization_requests"]) == (True, True)


def test_without_an_issuer_the_document_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUTHGATE_ISSUER", raising=False)
    caches.reset()
    with pytest.raises(ApiError) as info:
        get_metadata(Request.from_event(event(domain="", stage="")))
    assert (info.value.code, info.value.internal) == ("internal_error", "no issuer and no API context")
    response = get_metadata(Request.from_event(event(domain="abc.example", stage="prod")))
    assert (response.status, response.headers["Cache-Control"]) == (200, "public, max-age=3600")
