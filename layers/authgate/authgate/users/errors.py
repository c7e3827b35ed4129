"""A user's refusals: a username the tenant already has, a user it does not hold, a reset link not usable.

Every domain package keeps its refusals in its errors.py, apart from its records (docs/architecture.md,
"Stores").
"""

from __future__ import annotations


class UserExists(ValueError):
    """A new user under a username the tenant already has (create never overwrites unless told)."""


class UserNotFound(LookupError):
    """An operator's change to a user the tenant does not hold (or no longer holds)."""


class ResetLinkInvalid(Exception):
    """A password reset link that is unknown, expired or already used (one answer for all three)."""
