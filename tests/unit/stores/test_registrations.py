"""stores.registrations against moto's DynamoDB: the pools of registered clients (RFC 7591, RFC 7592)."""

from __future__ import annotations

import pytest

from authgate.clients.errors import ClientNotFound
from authgate.clients.model import REGISTRATION_SOURCE, Client
from authgate.stores.clients import ClientStore
from authgate.stores.registrations import (
    UNASSIGNED,
    RegistrationStore,
    token_hash,
    token_matches,
)

NOW = 1_800_000_000


def registered(client_id: str, expires_at: int, pool: str = UNASSIGNED, token: str = "t") -> Client:
    client = Client(client_id=client_id, tenant_id="" if pool == UNASSIGNED else pool, environment="local",
                    client_type="public", secret_hash=None, redirect_uris=("http://127.0.0.1:9/cb",),
                    grant_types=("authorization_code",), scopes=(), source=REGISTRATION_SOURCE,
                    expires_at=expires_at, registration_pool=pool, registration_token_hash=token_hash(token))
    ClientStore().create_record(client)
    return client


def test_a_pool_counts_its_live_clients_up_to_a_limit_and_knows_its_next_expiry(aws: None) -> None:
    store = RegistrationStore()
    assert (store.live_count(UNASSIGNED, NOW, 10), store.next_expiry(UNASSIGNED, NOW)) == (0, None)
    registered("dcr_a", NOW + 300)
    registered("dcr_b", NOW + 100)
    registered("dcr_gone", NOW - 1)  # expired, not yet removed by the TTL
    registered("dcr_t", NOW + 50, pool="acme")
    assert store.live_count(UNASSIGNED, NOW, 10) == 2 and store.live_count("acme", NOW, 10) == 1
    assert store.next_expiry(UNASSIGNED, NOW) == NOW + 100


def test_assign_takes_an_unassigned_client_once(aws: None) -> None:
    store = RegistrationStore()
    registered("dcr_a", NOW + 300)
    store.assign("dcr_a", "acme", NOW + 9000)
    client = ClientStore().get("dcr_a")
    assert client is not None and (client.tenant_id, client.registration_pool, client.expires_at) == (
        "acme", "acme", NOW + 9000)
    with pytest.raises(ClientNotFound):
        store.assign("dcr_a", "other", NOW + 9000)  # another tenant's first sign-in came second
    with pytest.raises(ClientNotFound):
        store.assign("dcr_nobody", "acme", NOW + 9000)


def test_replace_only_while_the_presented_token_is_current(aws: None) -> None:
    store = RegistrationStore()
    client = registered("dcr_a", NOW + 300, token="first")
    store.replace(client._replace(name="Renamed", registration_token_hash=token_hash("second")), token_hash("first"))
    stored = ClientStore().get("dcr_a")
    assert stored is not None and stored.name == "Renamed" and token_matches(stored.registration_token_hash, "second")
    with pytest.raises(ClientNotFound):
        store.replace(client._replace(name="Again"), token_hash("first"))


def test_touch_and_delete(aws: None) -> None:
    store = RegistrationStore()
    registered("dcr_a", NOW + 300)
    store.touch("dcr_a", NOW + 5000)
    stored = ClientStore().get("dcr_a")
    assert stored is not None and stored.expires_at == NOW + 5000
    store.delete("dcr_a")
    assert ClientStore().get("dcr_a") is None
    with pytest.raises(ClientNotFound):
        store.touch("dcr_a", NOW + 6000)


def test_the_registration_access_token_is_kept_as_a_hash_and_compared_in_constant_time() -> None:
    assert token_hash("t") != "t" and len(token_hash("t")) == 64
    assert token_matches(token_hash("t"), "t") and not token_matches(token_hash("t"), "u")
    assert not token_matches("", "")  # no stored hash: nothing matches
