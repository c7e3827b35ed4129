"""What an owner does to an operator's console roles: grant and revoke, one implementation for `authgate operators`
and the console (docs/console.md).

An operator is a person of the operators tenant (settings.operators_tenant). `change` checks, in this order, that the
role and its tenants fit (operators.roles.fitting), that the operators tenant and each tenant named exist, that the
person is there and, for a revocation, holds what is taken back; then writes the roles after the change, only if they
are still those read (stores.operators). It returns the operator as written and the sentence both say ("operator sam
holds support (acme)"). With `keep_an_owner` (the console's), taking `owner` from the last operator who holds it and
may sign in is refused: nobody could then open the operators' page to give it back, only the command could.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from authgate.operators.errors import RoleRefused
from authgate.operators.model import Operator
from authgate.operators.roles import OWNER, Roles, fitting, granted, revoked

if TYPE_CHECKING:
    from authgate.stores.operators import OperatorStore

GRANT, REVOKE = "grant", "revoke"
CHANGES = (GRANT, REVOKE)


class UnknownTenant(LookupError):
    """A tenant the change names (or the operators tenant) is not on the stack."""

    def __init__(self, tenant_id: str) -> None:
        super().__init__(tenant_id)
        self.tenant_id = tenant_id


class UnknownOperator(LookupError):
    """Nobody of that username in the operators tenant."""

    def __init__(self, tenant_id: str, username: str) -> None:
        super().__init__(username)
        self.tenant_id, self.username = tenant_id, username


class LastOwner(RoleRefused):
    """Taking `owner` from the last operator who holds it."""


class Changed(NamedTuple):
    """The operator as written, and what both the command and the console say of it."""

    operator: Operator
    said: str


def check(change: str, role: str, tenants: tuple[str, ...]) -> None:
    """RoleRefused unless `change` is grant or revoke and the role and its tenants fit (before anything is read)."""
    if change not in CHANGES:
        raise RoleRefused(f"no change {change!r}: the changes are {', '.join(CHANGES)}")
    fitting(role, tenants, granting=change == GRANT)


def change(change: str, username: str, role: str, tenants: tuple[str, ...] = (), *,
           keep_an_owner: bool = False) -> Changed:
    """Grant or revoke `role` (for `tenants`) to the operator `username`; RoleRefused (RoleNotHeld, LastOwner),
    UnknownTenant, UnknownOperator, or stores.exceptions.ConcurrentUpdate when the roles changed meanwhile."""
    from authgate.settings import get_settings
    from authgate.stores.operators import OperatorStore

    check(change, role, tenants)
    tenant = get_settings().operators_tenant
    existing(tenant, *tenants)
    store = OperatorStore()
    operator = store.get(tenant, username)
    if operator is None:
        raise UnknownOperator(tenant, username)
    roles = granted(operator.roles, role, tenants) if change == GRANT else revoked(operator.roles, role, tenants)
    if keep_an_owner and _owner(operator.roles) and not _owner(roles) and not _other_owners(store, tenant, username):
        raise LastOwner("is the last owner: grant owner to another operator first")
    changed = store.set_roles(operator, roles)
    return Changed(changed, f"operator {changed.username} holds {changed.described()}")


def existing(*tenant_ids: str) -> None:
    """UnknownTenant for the first of `tenant_ids` the stack does not have (one listing of the tenants)."""
    from authgate.stores.tenants import TenantStore

    if not tenant_ids:
        return
    known = {t.tenant_id for t in TenantStore().list()}
    missing = next((t for t in tenant_ids if t not in known), None)
    if missing is not None:
        raise UnknownTenant(missing)


def _owner(roles: Roles) -> bool:
    return any(role == OWNER for role, _ in roles)


def _other_owners(store: OperatorStore, tenant: str, username: str) -> bool:
    """Whether another operator who may sign in (not disabled) holds owner."""
    return any(o.username != username and not o.user.disabled and _owner(o.roles) for o in store.of_tenant(tenant))
