"""oauth.clients.registered: a registered client's first sign-in makes it a tenant's; use keeps it alive."""

from __future__ import annotations

import pytest

from authgate.clients.model import REGISTRATION_SOURCE, Client
from authgate.clock import ManualClock
from authgate.errors import ApiError
from authgate.oauth.clients import registered
from authgate.stores.clients import ClientStore
from authgate.stores.clients import key as clients_key
from authgate.stores.registrations import DAY, UNASSIGNED, UNUSED_LIFETIME
from authgate.tenants.model import Tenant

NOW = 1_800_000_000


@pytest.fixture
def calls(dynamodb_calls: list[str], clock: ManualClock) -> list[str]:
    """Every DynamoDB operation made, on a clock stopped at NOW."""
    clock.advance(NOW - clock())
    return dynamodb_calls


def registration(client_id: str = "dcr_1", *, expires_at: int = NOW + UNUSED_LIFETIME, pool: str = UNASSIGNED,
                 tenant: str = "") -> Client:
    client = Client(client_id=client_id, tenant_id=tenant, environment="local", client_type="public",
                    secret_hash=None, redirect_uris=("http://127.0.0.1:9/cb",), grant_types=("authorization_code",),
                    scopes=(), source=REGISTRATION_SOURCE, expires_at=expires_at, registration_pool=pool,
                    registration_token_hash="h")
    ClientStore().create_record(client)
    return client


def stored(client_id: str) -> Client:
    found = ClientStore().get(client_id)
    assert found is not None
    return found


def test_use_pushes_the_expiry_back_at_most_once_a_day(calls: list[str]) -> None:
    client = registration()
    registered.touch(client, NOW)
    assert stored("dcr_1").expires_at == NOW + 30 * DAY  # the deployment's idle lifetime (30 days)
    used = stored("dcr_1")
    calls.clear()
    registered.touch(used, NOW + DAY - 1)
    assert calls == []  # less than a day later: no write
    registered.touch(used, NOW + DAY)
    assert calls == ["UpdateItem"] and stored("dcr_1").expires_at == NOW + 31 * DAY


def test_a_client_deleted_meanwhile_is_let_be(calls: list[str]) -> None:
    gone = registration("dcr_gone")
    ClientStore().db.delete_item(TableName=ClientStore().table, Key=clients_key("dcr_gone"))
    calls.clear()
    registered.touch(gone, NOW)  # deleted meanwhile: the request that used it still completes
    assert calls == ["UpdateItem"]


def test_the_first_sign_in_makes_it_the_tenants_within_the_cap(calls: list[str]) -> None:
    client = registration()
    registered.assign(client, Tenant("acme", registered_clients_cap=1))
    assigned = stored("dcr_1")
    assert (assigned.tenant_id, assigned.registration_pool, assigned.expires_at) == ("acme", "acme", NOW + 30 * DAY)
    with pytest.raises(ApiError) as full:
        registered.assign(registration("dcr_2"), Tenant("acme", registered_clients_cap=1))
    assert (full.value.code, full.value.status, full.value.oauth_error, full.value.detail) == (
        "registration_limit_reached", 403, "invalid_client",
        "Your organisation already holds as many registered applications as it allows. Ask its administrator.")


def test_a_client_another_tenant_took_first_is_refused(calls: list[str]) -> None:
    client = registration()
    registered.assign(client, Tenant("first"))
    with pytest.raises(ApiError) as refused:
        registered.assign(client, Tenant("second"))
    assert (refused.value.code, refused.value.oauth_error) == ("registered_client_not_allowed", "invalid_client")
    assert stored("dcr_1").tenant_id == "first"
