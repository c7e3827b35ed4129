"""A tenant's refusals: an id taken, a tenant that is not there.

Every domain package keeps its refusals in its errors.py, apart from its records (docs/architecture.md,
"Stores").
"""

from __future__ import annotations


class TenantExists(Exception):
    """A tenant with this id is already stored (create never overwrites)."""


class TenantNotFound(LookupError):
    """No tenant with this id (an update's target)."""
