"""oauth.clients.registration.endpoint: POST /oauth/register, its switch, its limit per address, its pool."""

from __future__ import annotations

import json

import pytest

from authgate.errors import ApiError
from authgate.oauth.clients.registration.endpoint import post_register
from authgate.stores.clients import ClientStore
from tests.unit.oauth.clients.registration.conftest import REDIRECT, json_request

DOC = {"client_name": "CLI Agent", "redirect_uris": [REDIRECT]}


def refused(request_body: dict[str, object]) -> ApiError:
    with pytest.raises(ApiError) as caught:
        post_register(json_request("POST", request_body))
    return caught.value


@pytest.mark.usefixtures("enabled")
def test_a_registration_is_201_with_its_client_and_token_shown_once(capsys: pytest.CaptureFixture[str]) -> None:
    response = post_register(json_request("POST", DOC))
    body = json.loads(response.body)
    assert (response.status, response.headers) == (
        201, {"Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"})
    stored = ClientStore().get(body["client_id"])
    assert stored is not None and stored.registration_token_hash != body["registration_access_token"]
    metric = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"ClientRegistrations"' in line]
    assert len(metric) == 1 and metric[0]["service"] == "authgate"


def test_switched_off_it_refuses(aws: None) -> None:
    assert refused(DOC).code == "registration_not_enabled"


@pytest.mark.usefixtures("enabled")
def test_an_address_registers_at_most_its_rate_per_hour(monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_REGISTRATION_RATE", "2")
    caches.reset()
    for _ in range(2):
        assert post_register(json_request("POST", DOC)).status == 201
    limited = refused(DOC)
    assert (limited.code, limited.status, limited.oauth_error) == (
        "registration_rate_limited", 429, "temporarily_unavailable")
    retry = int(limited.headers["Retry-After"])
    assert 0 < retry <= 3600 and limited.detail == (
        f"Too many registrations from this address; retry after {retry} seconds.")


@pytest.mark.usefixtures("enabled")
def test_a_full_pool_is_503_until_the_next_registration_expires(monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_REGISTRATION_CAP", "1")
    caches.reset()
    assert post_register(json_request("POST", DOC)).status == 201
    full = refused(DOC)
    assert (full.code, full.status, full.oauth_error) == ("registration_pool_full", 503, "temporarily_unavailable")
    assert 0 < int(full.headers["Retry-After"]) <= 86400
