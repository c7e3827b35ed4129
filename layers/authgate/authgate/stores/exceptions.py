"""What a store reports when storage itself failed: unavailable, or another writer won; raised at the store edge.

Only failures of storage are here. A store that refuses an operation because a rule of the
domain says no (an invoice already paid, a code used twice, a client id taken) raises the
exception its domain package defines in its errors.py, below the stores (authgate.clients,
users, resources, tenants, billing, single_use): the store translates
DynamoDB's answer (ConditionalCheckFailed, a cancelled transaction's reasons) into it, as
Powertools' idempotency persistence layer does (IdempotencyItemAlreadyExistsError ...).
authgate.failures is the one mapping from both kinds to the ApiError a client sees.
"""

from __future__ import annotations


class StoreError(Exception):
    """Base of every storage failure."""


class StorageUnavailable(StoreError):
    """Throttled, timed out or down (stores.faults classifies it); nothing was changed. Retry later."""

    def __init__(self, operation: str, reason: str) -> None:
        super().__init__(f"{operation}: {reason}")
        self.operation = operation
        self.reason = reason


class ConcurrentUpdate(StoreError):
    """Another request's transaction was changing the same item (TransactionConflict); retry."""


class KeyStateConflict(StoreError):
    """Another rotation changed the signing keys first (the conditional write lost); never reaches a client."""


class SecretUnusable(StoreError):
    """The stack's sealing key (stores.sealing_key) is missing or too short: a deployment fault, never a weak key."""
