"""The roles of the console's operators and what each may do: the one table every console page asks (docs/console.md).

`owner` may do everything, the operators' roles included; `admin` runs the stack's configuration (tenants, clients,
resources, identity providers, signing keys); `support` helps people, in the tenants assigned to it only (finds a
person by username, email or id, sees their sessions, factors, linked identities, consents and recent events,
disables, enables, unlocks, resets their second factor, ends their sessions, sends a reset link), and never sees nor
sets a password or a secret; `auditor` reads everything, the events included, and changes nothing.

An action is a name (`people.view`, `clients.change`, ...) mapped to the roles that may take it; `may(operator,
action, tenant)` is the rule, `reach` where it holds (everywhere, or the tenants assigned). A role held for some
tenants (support) allows nothing outside them, nor an action that belongs to no tenant.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

OWNER, ADMIN, SUPPORT, AUDITOR = "owner", "admin", "support", "auditor"
ROLES = (OWNER, ADMIN, SUPPORT, AUDITOR)
# Roles held for named tenants (an operator is support of acme): they need at least one, the others take none.
TENANT_ROLES = frozenset({SUPPORT})

_READ = frozenset({OWNER, AUDITOR})
_HELP = frozenset({OWNER, SUPPORT})
_CONFIGURE = frozenset({OWNER, ADMIN})
# Action -> the roles that may take it. Reads of the configuration are the configurers' and the auditor's; a
# person's record and what support does to it are support's in its tenants (and the owner's); what support must
# never do (set a password, create or delete a person) is the owner's alone.
ACTIONS: dict[str, frozenset[str]] = {
    # The console's home page: anyone with a role.
    "console.home": frozenset(ROLES),
    # People (docs/users.md).
    "people.find": _READ | _HELP,
    "people.view": _READ | _HELP,
    "people.disable": _HELP,
    "people.enable": _HELP,
    "people.unlock": _HELP,
    "people.reset_mfa": _HELP,
    "people.revoke_sessions": _HELP,
    "people.send_reset_link": _HELP,
    "people.create": frozenset({OWNER}),
    "people.update": frozenset({OWNER}),
    "people.reset_password": frozenset({OWNER}),
    "people.unlink": frozenset({OWNER}),
    # Withdrawing a consent revokes the client's grants: not among what support does (docs/console.md).
    "people.revoke_consent": frozenset({OWNER}),
    "people.delete": frozenset({OWNER}),
    # The stack's configuration.
    **{f"{noun}.view": _READ | _CONFIGURE for noun in ("tenants", "clients", "resources", "idps", "keys")},
    **{f"{noun}.change": _CONFIGURE for noun in ("tenants", "clients", "resources", "idps", "keys")},
    # What happened, and who did it.
    "events.view": _READ,
    # The operators themselves.
    "operators.view": _READ,
    "operators.change": frozenset({OWNER}),
}

Roles = tuple[tuple[str, tuple[str, ...]], ...]


class Reach(NamedTuple):
    """Where an operator may take an action: everywhere, or in these tenants (none: nowhere)."""

    everywhere: bool
    tenants: frozenset[str] = frozenset()

    def includes(self, tenant: str | None) -> bool:
        """Whether it holds for `tenant` (None: an action of no tenant, which a tenant's role never allows)."""
        return self.everywhere or (tenant is not None and tenant in self.tenants)

    @property
    def anywhere(self) -> bool:
        return self.everywhere or bool(self.tenants)


def reach(roles: Roles, action: str) -> Reach:
    """Where the roles `roles` allow `action` (an unknown action: nowhere)."""
    allowed = ACTIONS.get(action, frozenset())
    tenants: set[str] = set()
    for role, assigned in roles:
        if role not in allowed:
            continue
        if role not in TENANT_ROLES:
            return Reach(True)
        tenants.update(assigned)
    return Reach(False, frozenset(tenants))


def may(roles: Roles, action: str, tenant: str | None = None) -> bool:
    """Whether roles `roles` allow `action` on `tenant`'s people or settings (None: an action of no tenant)."""
    return reach(roles, action).includes(tenant)


def fitting(role: str, tenants: tuple[str, ...], *, granting: bool) -> None:
    """RoleRefused unless `role` is a role and `tenants` fit it: a tenant's role is granted for some, another role
    for none (nor revoked for some)."""
    from authgate.operators.errors import RoleRefused

    if role not in ROLES:
        raise RoleRefused(f"no role {role!r}: the roles are {', '.join(ROLES)}")
    if role in TENANT_ROLES and granting and not tenants:
        raise RoleRefused(f"role {role} is held for tenants: name at least one with --tenant")
    if role not in TENANT_ROLES and tenants:
        raise RoleRefused(f"role {role} holds everywhere: --tenant is for role {', '.join(sorted(TENANT_ROLES))} only")


def granted(roles: Roles, role: str, tenants: Iterable[str] = ()) -> Roles:
    """`roles` with `role` (for `tenants`, added to those it already holds), sorted; RoleRefused for a tenant's role
    without a tenant or another role with one."""
    wanted = tuple(tenants)
    fitting(role, wanted, granting=True)
    held = dict(roles)
    held[role] = tuple(sorted({*held.get(role, ()), *wanted}))
    return tuple(sorted(held.items()))


def revoked(roles: Roles, role: str, tenants: Iterable[str] = ()) -> Roles:
    """`roles` without `role` (given `tenants`: without those tenants of it, and without the role once it has none
    left); RoleNotHeld when it is not held, or not for one of `tenants`."""
    from authgate.operators.errors import RoleNotHeld

    held = dict(roles)
    gone = tuple(tenants)
    if role not in held:
        raise RoleNotHeld(f"holds no role {role}")
    missing = [t for t in gone if t not in held[role]]
    if missing:
        raise RoleNotHeld(f"holds role {role} for no tenant {missing[0]!r}")
    left = tuple(t for t in held[role] if t not in gone) if gone else ()
    if left:
        held[role] = left
    else:
        del held[role]
    return tuple(sorted(held.items()))


def described(roles: Roles) -> str:
    """The roles as people read them: "owner", "support (acme, demo)", "none"."""
    return ", ".join(f"{role} ({', '.join(tenants)})" if tenants else role for role, tenants in roles) or "none"
