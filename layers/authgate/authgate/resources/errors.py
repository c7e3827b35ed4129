"""A protected resource's refusals: an identifier taken, a resource that is not registered.

Every domain package keeps its refusals in its errors.py, apart from its records (docs/architecture.md,
"Stores").
"""

from __future__ import annotations


class ResourceExists(Exception):
    """A protected resource with this identifier is already registered (RFC 8707 2)."""


class ResourceNotFound(LookupError):
    """No protected resource with this identifier is registered."""
