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


class StrongAuthenticationRequired(Exception):
    """A charge at or above the tenant's threshold, with a token whose sign-in is too weak or too old (RFC 9470 3).

    `acr_values` and `max_age` are what the challenge asks the client to obtain.
    """

    def __init__(self, detail: str, acr_values: tuple[str, ...], max_age: int) -> None:
        super().__init__(detail)
        self.detail = detail
        self.acr_values = acr_values
        self.max_age = max_age
