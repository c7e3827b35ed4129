"""Creating a tenant and changing its settings: one implementation, called by `authgate tenants create | update`
and by the console's tenant pages, with the same checks and messages.

`create` stores a new tenant (never over one: TenantExists); `update` changes the settings given and keeps the
others (TenantNotFound when there is no such tenant). Both check every value (administration.tenant_settings),
then what only the stack can tell (its known scopes, a webhook's addresses), then claim the login domains (one
tenant each): a refusal is InvalidInput with the message both callers show. Warm functions see a change within a
minute (their tenant cache).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from authgate.administration.input import InvalidInput
from authgate.administration.tenant_settings import (
    checked,
    given,
    new_tenant,
    on_the_stack,
    tenant_id,
)
from authgate.stores.tenants import TenantStore
from authgate.tenants.errors import LoginDomainTaken, TenantExists, TenantNotFound
from authgate.tenants.model import Tenant


class Updated(NamedTuple):
    """A tenant before and after an update."""

    before: Tenant
    after: Tenant


def said(tenant: Tenant, done: str) -> str:
    """What the command prints and the console says once `done` ("created", "updated") is done."""
    return f"tenant {tenant.tenant_id} {done} ({', '.join(tenant.currencies)})"


def exists(tenant: str) -> TenantExists:
    return TenantExists(f"tenant {tenant!r} already exists")


def create(tenant: str, values: Mapping[str, Any]) -> Tenant:
    """Store the tenant `tenant` with the settings `values` (by field, as tenant_settings.given reads them)."""
    new = new_tenant(tenant, values)
    on_the_stack(new)
    store = TenantStore()
    if store.get(new.tenant_id) is not None:
        raise exists(new.tenant_id)
    _claim(store, new)
    try:
        store.create(new)
    except TenantExists:
        raise exists(new.tenant_id) from None
    return new


def update(tenant: str, values: Mapping[str, Any]) -> Updated:
    """Change the settings `values` gives of the tenant `tenant`, keep the others."""
    store = TenantStore()
    current = store.get(tenant_id("tenant id", tenant))
    if current is None:
        raise TenantNotFound(tenant)
    after = checked(current._replace(**given(values)))
    on_the_stack(after)
    _claim(store, after, current.login_domains)
    store.replace(after)
    return Updated(current, after)


def _claim(store: TenantStore, tenant: Tenant, previous: tuple[str, ...] = ()) -> None:
    try:
        store.claim_login_domains(tenant.tenant_id, tenant.login_domains, previous)
    except LoginDomainTaken as exc:
        raise InvalidInput(str(exc)) from None
