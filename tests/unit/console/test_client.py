"""console.client: the console's own client record, ensured for the issuer, its secret derived and never stored."""

from __future__ import annotations

import boto3
import pytest


def test_the_console_client_is_a_confidential_client_of_the_operators_tenant(aws: None) -> None:
    from authgate.clients.model import client_secret_matches
    from authgate.console.client import client_secret, ensure
    from authgate.stores.clients import ClientStore

    assert ensure("http://127.0.0.1:3000/") is True
    client = ClientStore().get("authgate-console")
    assert client is not None
    assert (client.tenant_id, client.client_type, client.auth_methods, client.grant_types, client.scopes) == (
        "operators", "confidential", ("client_secret_basic",), ("authorization_code",), ("openid", "profile"))
    assert (client.redirect_uris, client.post_logout_redirect_uris) == (
        ("http://127.0.0.1:3000/console/callback",), ("http://127.0.0.1:3000/console/signed-out",))
    assert client_secret_matches(client, client_secret()) and len(client_secret()) == 43
    (item,) = boto3.client("dynamodb").scan(TableName="ClientsTable")["Items"]
    assert client_secret() not in str(item)


def test_ensure_writes_only_what_changed_and_retire_removes_it(aws: None) -> None:
    from authgate.console.client import ensure, retire
    from authgate.stores.clients import ClientStore

    assert ensure("http://127.0.0.1:3000") is True
    assert ensure("http://127.0.0.1:3000") is False  # a deploy that changes nothing writes nothing
    assert ensure("https://auth.example.com") is True
    assert ClientStore().get("authgate-console").redirect_uris == (  # type: ignore[union-attr]
        "https://auth.example.com/console/callback",)
    retire()
    retire()  # already gone: nothing to do
    assert ClientStore().get("authgate-console") is None


def test_the_secret_follows_the_sealing_key(aws: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from authgate import caches
    from authgate.console.client import client_secret

    first = client_secret()
    monkeypatch.setenv("AUTHGATE_SESSION_SECRET", "another-session-secret-0123456789abcdef")
    caches.reset()
    assert client_secret() != first
