"""An operator: a user of the operators tenant and the roles they hold (operators.roles), kept on their user item.

The roles are one attribute of the person's UsersTable item, `operator_roles` (a map of role to the tenants it is
held for), so that the console reads the person and their roles in one read, and a role goes with the person: a
user deleted or created again under the same username holds none. stores.operators reads and writes it.
"""

from __future__ import annotations

from typing import NamedTuple

from authgate.operators.roles import Roles, described
from authgate.records import Field
from authgate.users.model import User

ROLES_FIELD = Field("operator_roles", "MAP", (), omit_empty=True)


class Operator(NamedTuple):
    """A person of the operators tenant and their roles (none: a user of the tenant who is no operator yet)."""

    user: User
    roles: Roles = ()

    @property
    def username(self) -> str:
        return self.user.username

    def described(self) -> str:
        return described(self.roles)
