"""The refusals of a change of an operator's roles (operators.roles): what was asked makes no sense as written."""

from __future__ import annotations


class RoleRefused(ValueError):
    """A grant or revocation the rules refuse; the message says why (the admin command prints it)."""


class RoleNotHeld(RoleRefused):
    """A revocation of a role, or of a tenant of it, the operator does not hold."""
