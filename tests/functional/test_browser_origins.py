"""Which origins may call the token and JWKS endpoints: origin records written at registration.

Through the real jwks and token functions on moto: a public client's redirect origins are
allowed, a confidential client's and another environment's are not, an origin record is never
readable as a client, and the check is one GetItem (never a scan of ClientsTable).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.demo import ISSUER, Demo
from tests.events import event

Invoke = Any


def preflight(invoke: Invoke, function: str, path: str, origin: str, method: str) -> dict[str, Any]:
    return invoke(function, event("OPTIONS", path, headers={
        "Origin": origin, "Access-Control-Request-Method": method}))


@pytest.fixture
def fresh_origins() -> None:
    from authgate import caches

    caches.reset()


def register(**kwargs: Any) -> None:
    from authgate.stores.clients import ClientStore

    ClientStore().create(tenant_id="demo", **kwargs)


def test_a_public_clients_redirect_origin_is_allowed_on_jwks_and_token(
        demo: Demo, invoke: Invoke, fresh_origins: None) -> None:
    register(client_id="spa-two", client_type="public", redirect_uris=["https://spa.example:8443/cb"],
             grant_types=["authorization_code"])
    for function, path, method in (("jwks", "/.well-known/jwks.json", "GET"), ("token", "/oauth/token", "POST")):
        result = preflight(invoke, function, path, "https://spa.example:8443", method)
        assert result["statusCode"] == 204, (function, result)
        assert result["multiValueHeaders"]["Access-Control-Allow-Origin"] == ["https://spa.example:8443"]
        assert result["body"] == ""


@pytest.mark.parametrize("origin, registration", [
    # a confidential client's redirect origin: its code goes to a server, not a browser
    ("https://server.example", {"client_id": "web-two", "client_type": "confidential",
                                "redirect_uris": ["https://server.example/cb"], "grant_types": ["authorization_code"]}),
    # a public client of another environment
    ("https://staging-spa.example", {"client_id": "spa-staging", "client_type": "public", "environment": "staging",
                                     "redirect_uris": ["https://staging-spa.example/cb"],
                                     "grant_types": ["authorization_code"]}),
    # a port is part of the origin (RFC 6454)
    ("https://spa.example", {"client_id": "spa-port", "client_type": "public",
                             "redirect_uris": ["https://spa.example:8443/cb"], "grant_types": ["authorization_code"]}),
])
def test_other_origins_are_refused_in_the_documented_shape(
        demo: Demo, invoke: Invoke, fresh_origins: None, origin: str, registration: dict[str, Any]) -> None:
    register(**registration)
    result = preflight(invoke, "token", "/oauth/token", origin, "POST")
    assert result["statusCode"] == 403
    assert "Access-Control-Allow-Origin" not in result["multiValueHeaders"]
    # The token endpoint's errors are OAuth-shaped (RFC 6749 5.2), with the contract's code.
    assert result["multiValueHeaders"]["Content-Type"] == ["application/json"]
    assert result["multiValueHeaders"]["Cache-Control"] == ["no-store"]
    body = json.loads(result["body"])
    assert body == {
        "error": "invalid_request",
        "error_description": "This Origin is not the origin of a redirect URI registered by a public client "
                             "of this environment, so a browser may not call this endpoint from it.",
        "error_uri": f"{ISSUER}/problems/origin_not_allowed",
    }


def test_an_origin_record_never_reads_as_a_client(demo: Demo, fresh_origins: None) -> None:
    from authgate.clients.origins import origin_record_id
    from authgate.stores.clients import ClientStore

    register(client_id="spa-three", client_type="public", redirect_uris=["https://three.example/cb"],
             grant_types=["authorization_code"])
    store = ClientStore()
    record = origin_record_id("local", "https://three.example")
    assert store.get(record, any_environment=True) is None
    assert record not in {c.client_id for c in store.list()}
    assert store.origin_allowed("https://three.example")


def test_the_origin_check_is_one_getitem_cached_per_origin(
        demo: Demo, invoke: Invoke, fresh_origins: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import aws

    calls: list[str] = []
    client = aws.dynamodb()
    for name in ("get_item", "scan", "query", "batch_get_item"):
        original = getattr(client, name)

        def recorder(*args: Any, _name: str = name, _original: Any = original, **kwargs: Any) -> Any:
            calls.append(f"{_name} {kwargs.get('TableName', '')}")
            return _original(*args, **kwargs)

        monkeypatch.setattr(client, name, recorder)
    for _ in range(3):
        preflight(invoke, "jwks", "/.well-known/jwks.json", "https://nowhere.example", "GET")
    assert [c for c in calls if "Clients" in c] == [calls[0]]
    assert calls[0].startswith("get_item ")
