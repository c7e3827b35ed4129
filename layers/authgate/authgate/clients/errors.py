"""A registered client's refusals: an id taken, a client that is not there.

Every domain package keeps its refusals in its errors.py, apart from its records (docs/architecture.md,
"Stores").
"""

from __future__ import annotations


class ClientExists(Exception):
    """A client with this id is already registered (a new client never replaces one)."""


class ClientNotFound(LookupError):
    """No client with this id, or not the record that was read (rotation, update, deletion target)."""
