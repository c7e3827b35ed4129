"""A trusted identity provider's refusals: one already trusted, one that is not.

Every domain package keeps its refusals in its errors.py, apart from its records (docs/architecture.md,
"Stores").
"""

from __future__ import annotations


class IdentityProviderExists(Exception):
    """The tenant already trusts an identity provider with this issuer."""


class IdentityProviderNotFound(LookupError):
    """The tenant trusts no identity provider with this issuer."""
