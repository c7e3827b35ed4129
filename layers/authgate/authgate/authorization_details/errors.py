"""The refusals of authorization details (RFC 9396 5, 6.2) and of what a token's details allow.

Every domain package keeps its refusals in its errors.py (docs/architecture.md, "Stores");
authgate.failures maps each to its catalogue code once.
"""

from __future__ import annotations


class DetailsInvalid(ValueError):
    """The authorization_details are malformed, of an unknown type, break their type's rules, or are wider than
    the grant's (RFC 9396 5, 6.2): invalid_authorization_details."""


class DetailsExceeded(Exception):
    """A charge beyond the `charge` details its access token carries (amount, currency, or max_charges over the
    grant): authorization_details_exceeded."""


class SchemaInvalid(ValueError):
    """A registered resource's JSON Schema for its own type is not a valid Draft 2020-12 schema, or too large."""
