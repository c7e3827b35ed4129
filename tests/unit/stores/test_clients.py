"""stores.clients: ClientStore and the demo seed against moto's DynamoDB (built from template.yaml)."""

from __future__ import annotations

import hashlib
import json

import pytest

from authgate.clients.model import client_secret_matches


@pytest.fixture
def seeded(aws):
    from authgate_cli.local.seed import load_seed

    return load_seed()


def test_demo_seed_loads_every_tenant_and_client(seeded):
    from authgate.stores.clients import ClientStore

    assert seeded["tenants"] == 3  # demo, acme and the console's operators
    assert seeded["clients"] == 11  # ten demo clients + staging-web from the staging seed
    assert seeded["api_keys"] == [{"value": "demo-api-key", "usage_plan": "StandardUsagePlan"}]
    ids = sorted(c.client_id for c in ClientStore().list())
    assert ids == ["acme-service", "demo-agent", "demo-fapi", "demo-legacy-a", "demo-legacy-b", "demo-partner", "demo-reader",
                   "demo-service", "demo-spa", "demo-web", "staging-web"]


def test_demo_fapi_is_seeded_with_its_public_key_only(seeded):
    import boto3

    from authgate.stores.clients import ClientStore

    client = ClientStore().get("demo-fapi")
    assert client is not None
    assert (client.profile, client.token_endpoint_auth_method, client.secret_hash,
            client.require_pushed_authorization_requests) == ("fapi2", "private_key_jwt", None, True)
    (key,) = client.jwks
    assert set(key) == {"kty", "kid", "alg", "use", "crv", "x", "y"}
    item = boto3.client("dynamodb").get_item(TableName="ClientsTable", Key={"client_id": {"S": "demo-fapi"}})["Item"]
    (stored,) = json.loads(item["jwks"]["S"])["keys"]
    assert not {"d", "p", "q", "dp", "dq", "qi"} & set(stored) and "private_jwk" not in item


def test_seeded_secret_is_stored_as_sha256_only(seeded):
    import boto3

    item = boto3.client("dynamodb").get_item(TableName="ClientsTable",
                                             Key={"client_id": {"S": "demo-web"}})["Item"]
    assert item["secret_hash"] == {"S": hashlib.sha256(b"demo-web-secret").hexdigest()}
    assert "demo-web-secret" not in str(item)


def test_get_returns_the_whole_client(seeded):
    from authgate.stores.clients import ClientStore

    client = ClientStore().get("demo-web")
    assert client is not None
    assert (client.tenant_id, client.environment, client.client_type, client.redirect_uris,
            client.grant_types, client.scopes, client.error_format, client.requires_admin_approval) == (
        "demo", "local", "confidential", ("http://127.0.0.1:8765/callback",),
        ("authorization_code", "refresh_token"),
        ("charges:read", "charges:write", "charges:refund", "openid", "profile", "email", "offline_access"),
        "problem", False)
    assert client_secret_matches(client, "demo-web-secret")
    assert not client_secret_matches(client, "demo-web-secret ")
    spa = ClientStore().get("demo-spa")
    assert spa is not None and spa.is_public and spa.secret_hash is None
    assert not client_secret_matches(spa, "")
    assert ClientStore().get("demo-legacy-b").error_format == "legacy-b"
    assert ClientStore().get("demo-partner").requires_admin_approval is True


def test_client_of_another_environment_reads_as_unknown(seeded):
    from authgate.stores.clients import ClientStore

    assert ClientStore().get("staging-web") is None
    assert ClientStore().get("staging-web", any_environment=True).environment == "staging"
    assert ClientStore().get("nope") is None


def test_create_shows_secret_once_and_rotation_invalidates_old_secret_at_once(aws):
    from authgate.clients.errors import ClientExists, ClientNotFound
    from authgate.stores.clients import ClientStore

    store = ClientStore()
    _client, secret = store.create(tenant_id="demo", name="x", grant_types=["client_credentials"],
                                  scopes=["charges:read"], client_id="new-client")
    assert secret and len(secret) >= 43
    assert client_secret_matches(store.get("new-client"), secret)
    with pytest.raises(ClientExists):
        store.create(tenant_id="demo", client_id="new-client")
    rotated = store.rotate_secret("new-client")
    assert rotated != secret
    fresh = store.get("new-client")
    assert client_secret_matches(fresh, rotated) and not client_secret_matches(fresh, secret)
    with pytest.raises(ClientNotFound):
        store.rotate_secret("missing")
    _public, none = store.create(tenant_id="demo", client_type="public", client_id="pub")
    assert none is None
    with pytest.raises(ClientNotFound):
        store.rotate_secret("pub")


def test_throttling_becomes_service_unavailable(aws):
    from botocore.stub import Stubber

    from authgate.aws import dynamodb
    from authgate.failures import api_error
    from authgate.stores.clients import ClientStore
    from authgate.stores.exceptions import StorageUnavailable

    client = dynamodb()
    with Stubber(client) as stub:
        stub.add_client_error("get_item", "ProvisionedThroughputExceededException", http_status_code=400)
        with pytest.raises(StorageUnavailable) as info:
            ClientStore(client).get("demo-web")
    error = api_error(info.value)
    assert error is not None and (error.code, error.status, error.headers, error.oauth_error) == (
        "service_unavailable", 503, {"Retry-After": "1"}, "temporarily_unavailable")


def test_create_takes_a_clients_fields_by_name_and_nothing_else(aws):
    from authgate.stores.clients import ClientStore

    client, _ = ClientStore().create(client_id="named", tenant_id="demo", scopes=["charges:read"], profile="fapi2",
                                     token_endpoint_auth_method="private_key_jwt", jwks=[{"kty": "EC"}])
    assert ClientStore().get("named") == client
    assert (client.scopes, client.profile, client.jwks) == (("charges:read",), "fapi2", ({"kty": "EC"},))
    with pytest.raises(TypeError, match="unknown client fields: \\['scope'\\]"):
        ClientStore().create(client_id="typo", tenant_id="demo", scope=["charges:read"])
    assert ClientStore().get("typo") is None


def test_a_tenants_clients_come_a_page_at_a_time_without_the_expired(seeded):
    from authgate import clock
    from authgate.stores.clients import ClientStore

    store = ClientStore()
    acme = store.get("acme-service")
    for number in range(5):
        store.put(acme._replace(client_id=f"acme-{number}"))
    store.put(acme._replace(client_id="acme-gone", source="registration", expires_at=clock.seconds() - 1))
    pages, after = [], ""
    while True:
        found, after = store.of_tenant("acme", after=after, limit=2)
        pages.append([c.client_id for c in found])
        if not after:
            break
    assert [len(p) for p in pages] == [2, 2, 2]
    assert sorted(c for p in pages for c in p) == ["acme-0", "acme-1", "acme-2", "acme-3", "acme-4", "acme-service"]
    assert store.of_tenant("nowhere") == ([], "")
