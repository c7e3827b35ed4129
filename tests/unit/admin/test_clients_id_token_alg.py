"""`authgate clients create|update --id-token-signed-response-alg` (OpenID Connect Dynamic Client Registration 1.0
2): one of the stack's id_token_signing_alg_values_supported, never none; against moto."""

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
    return ns(client_id="web", grant=["authorization_code"], redirect_uri=["https://app.example/cb"],
              scope=["openid"], **kwargs)


def test_the_option_is_parsed() -> None:
    from authgate_cli.main import build_parser

    argv = ["clients", "update", "web", "--id-token-signed-response-alg", "ES256"]
    assert build_parser(argv).parse_args(argv).id_token_signed_response_alg == "ES256"


def test_an_es256_stack_takes_es256_and_update_changes_it(demo: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.client_actions import create_client, update_client

    monkeypatch.setenv("AUTHGATE_SIGNING_ALG", "ES256")
    caches.reset()
    out = io.StringIO()
    assert create_client(web(id_token_signed_response_alg="ES256"), out) == 0
    assert json.loads(out.getvalue())["id_token_signed_response_alg"] == "ES256"
    client = ClientStore().get("web")
    assert client is not None and client.id_token_alg == "ES256"
    assert update_client(ns(client_id="web", grant=[], id_token_signed_response_alg="RS256", json=True),
                         io.StringIO()) == 0
    client = ClientStore().get("web")
    assert client is not None and client.id_token_alg == "RS256"


@pytest.mark.parametrize("alg, why", [
    ("ES256", "--id-token-signed-response-alg must be one of RS256 (this stack's id_token_signing_alg_values_supported)"),
    ("none", ("--id-token-signed-response-alg none is refused: ID tokens of the authorization code flow are signed "
              "(OpenID Connect Core 3.1.3.7)")),
    ("HS256", "--id-token-signed-response-alg must be one of RS256, ES256"),
])
def test_an_algorithm_the_stack_does_not_offer_is_refused_in_one_line(
        demo: None, capsys: pytest.CaptureFixture[str], alg: str, why: str) -> None:
    from authgate.stores.clients import ClientStore
    from authgate_cli.admin.client_actions import create_client, update_client

    assert create_client(web(id_token_signed_response_alg=alg), io.StringIO()) == 2
    assert capsys.readouterr().err == f"authgate clients: {why}\n"
    assert ClientStore().get("web") is None
    assert create_client(web(), io.StringIO()) == 0
    assert update_client(ns(client_id="web", grant=[], id_token_signed_response_alg=alg, json=True),
                         io.StringIO()) == 2
    # The stack is known: what it offers (RS256 here).
    assert capsys.readouterr().err == "authgate clients: " + why.replace(
        "RS256, ES256", "RS256 (this stack's id_token_signing_alg_values_supported)") + "\n"
