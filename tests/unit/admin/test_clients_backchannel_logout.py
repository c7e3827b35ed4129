"""`authgate clients create|update --backchannel-logout-uri` (OpenID Connect Back-Channel Logout 1.0 2.2), against moto."""

from __future__ import annotations

import io
import json

import pytest

from tests.unit.admin.clients_arguments import ns


@pytest.fixture
def demo(aws: None) -> None:
    from authgate_cli.local.loaders import tenants as seed

    seed([{"tenant_id": "demo", "name": "Demo", "currencies": ["usd"], "forbidden_scopes": [],
           "approved_clients": []}])


def web(**kwargs: object) -> object:
    return ns(client_id="web", grant=["authorization_code"], redirect_uri=["https://app.example/cb"], **kwargs)


def test_create_registers_the_uri_and_update_changes_or_removes_it(demo: None) -> None:
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.client_actions import create_client, update_client

    out = io.StringIO()
    assert create_client(web(backchannel_logout_uri="https://app.example/bcl",
                             backchannel_logout_session_required=True), out) == 0
    shown = json.loads(out.getvalue())
    assert (shown["backchannel_logout_uri"], shown["backchannel_logout_session_required"]) == (
        "https://app.example/bcl", True)
    assert update_client(ns(client_id="web", grant=[], backchannel_logout_uri="https://app.example/other",
                            backchannel_logout_session_required=False, json=True), io.StringIO()) == 0
    client = ClientStore().get("web")
    assert client is not None
    assert (client.backchannel_logout_uri, client.backchannel_logout_session_required) == (
        "https://app.example/other", False)
    assert update_client(ns(client_id="web", grant=[], backchannel_logout_uri="", json=True), io.StringIO()) == 0
    client = ClientStore().get("web")
    assert client is not None and client.backchannel_logout_uri == ""


@pytest.mark.parametrize("uri, why", [
    ("http://app.example/bcl", "--backchannel-logout-uri must be an https URL"),
    ("https://app.example/bcl#f", "--backchannel-logout-uri must not have a fragment (Back-Channel Logout 1.0 2.2)"),
    ("https://127.0.0.1:9/bcl", "--backchannel-logout-uri must not point at loopback on this stack"),
])
def test_a_bad_uri_is_refused_in_one_line(demo: None, capsys: pytest.CaptureFixture[str], uri: str,
                                          why: str) -> None:
    from authgate_cli.admin.client_actions import create_client

    assert create_client(web(backchannel_logout_uri=uri), io.StringIO()) == 2
    assert capsys.readouterr().err == f"authgate clients: {why}\n"


def test_loopback_is_taken_on_a_stack_that_allows_it(demo: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches
    from authgate_cli.admin.client_actions import create_client

    monkeypatch.setenv("AUTHGATE_ALLOW_LOOPBACK_OUTBOUND", "true")
    caches.reset()
    assert create_client(web(backchannel_logout_uri="http://127.0.0.1:8765/bcl"), io.StringIO()) == 0
