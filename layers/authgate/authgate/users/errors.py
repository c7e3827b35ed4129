"""A user's refusal: a username the tenant already has.

Every domain package keeps its refusals in its errors.py, apart from its records (docs/architecture.md,
"Stores").
"""

from __future__ import annotations


class UserExists(ValueError):
    """A new user under a username the tenant already has (create never overwrites unless told)."""


class UserNotFound(LookupError):
    """No user with this username in the tenant (an operator's or an enrolment's target)."""


class NoPendingEnrolment(LookupError):
    """A one-time-code enrolment confirmed without one started, expired, or replaced meanwhile."""
