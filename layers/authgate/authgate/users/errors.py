"""A user's refusal: a username the tenant already has.

Every domain package keeps its refusals in its errors.py, apart from its records (docs/architecture.md,
"Stores").
"""

from __future__ import annotations


class UserExists(ValueError):
    """A new user under a username the tenant already has (create never overwrites unless told)."""


class UserNotFound(LookupError):
    """An operator's change to a user the tenant does not hold (or no longer holds)."""
