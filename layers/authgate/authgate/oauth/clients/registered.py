"""A dynamically registered client's life (RFC 7591; docs/agents.md): the sign-in that makes it a
tenant's, and the use that keeps it.

A registered client counts in the deployment's unassigned pool until a user signs in to it
(stores.registrations); the first sign-in makes it that user's tenant's, within the tenant's cap,
and gives it the deployment's idle lifetime, which each authentication pushes back at most once
a day (one UpdateItem, not one per request). Records leave by themselves (DynamoDB TTL).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authgate import clock
from authgate.clients.errors import ClientNotFound
from authgate.errors import ApiError
from authgate.oauth.clients import tenant_policy
from authgate.settings import get_settings
from authgate.stores.registrations import DAY, RegistrationStore

if TYPE_CHECKING:
    from authgate.clients.model import Client
    from authgate.tenants.model import Tenant


def assign(client: Client, tenant: Tenant) -> None:
    """The signed-in user's tenant takes the client, within its cap (registration_limit_reached); a client
    another tenant's user signed in to first is that tenant's, and refused here (tenant_policy)."""
    store = RegistrationStore()
    cap = tenant.registered_clients_cap
    if store.live_count(tenant.tenant_id, clock.seconds(), cap) >= cap:
        raise ApiError("registration_limit_reached", "Your organisation already holds as many registered "
                       "applications as it allows. Ask its administrator.", oauth_error="invalid_client")
    try:
        # Used from now on: the deployment's idle lifetime replaces the unused registration's day.
        store.assign(client.client_id, tenant.tenant_id, clock.seconds() + get_settings().registration_idle_days * DAY)
    except ClientNotFound:
        # Another tenant's user signed in first: the client is that tenant's now.
        refused = tenant_policy.refusal(client, None)
        assert refused is not None
        raise refused from None


def touch(client: Client, now: int) -> None:
    """A registered client (source "registration") authenticated: push its expiry back (at most once a day)."""
    expires_at = now + get_settings().registration_idle_days * DAY
    if expires_at - client.expires_at >= DAY:
        try:
            RegistrationStore().touch(client.client_id, expires_at)
        except ClientNotFound:
            pass  # deleted meanwhile: this request still completes, the next is refused
