"""A tenant's refusals: an id taken, a tenant that is not there.

Every domain package keeps its refusals in its errors.py, apart from its records (docs/architecture.md,
"Stores").
"""

from __future__ import annotations


class TenantExists(Exception):
    """A tenant with this id is already stored (create never overwrites)."""


class TenantNotFound(LookupError):
    """No tenant with this id (an update's target)."""


class LoginDomainTaken(ValueError):
    """A login domain another tenant already has (an email domain signs in to one tenant only)."""

    def __init__(self, domain: str, owner: str) -> None:
        super().__init__(f"the login domain {domain!r} already belongs to tenant {owner!r}")
        self.domain, self.owner = domain, owner
