"""What a store reports when it cannot do what it was asked: domain exceptions, raised at the store edge.

Stores translate DynamoDB's answers (ConditionalCheckFailed, TransactionCanceled reasons,
throttling) into these, and know nothing of HTTP or the error catalogue. authgate.failures is
the one mapping from these to the ApiError a client sees; a flow that must act first (revoke a
replayed code's grant, say) catches the exception, acts, and raises that mapping's answer.
Powertools' idempotency persistence layer is the model (IdempotencyItemAlreadyExistsError ...).
The exceptions that carry a record are defined beside it (stores.codes.CodeError and its
subclasses, stores.idempotency.IdempotencyKeyUsed), so that this module imports nothing.
"""

from __future__ import annotations


class StoreError(Exception):
    """Base of every store's domain exception."""


class StorageUnavailable(StoreError):
    """Throttled, timed out or down (stores.faults classifies it); nothing was changed. Retry later."""

    def __init__(self, operation: str, reason: str) -> None:
        super().__init__(f"{operation}: {reason}")
        self.operation = operation
        self.reason = reason


class ConcurrentUpdate(StoreError):
    """Another request's transaction was changing the same item (TransactionConflict); retry."""


# -- charges: the invoice a charge pays, and the idempotency record of a keyed POST ----------------

class InvoiceNotPayable(StoreError):
    """The invoice's payment condition failed; the subclass says which rule."""

    def __init__(self, invoice_id: str) -> None:
        super().__init__(invoice_id)
        self.invoice_id = invoice_id


class InvoiceNotFound(InvoiceNotPayable):
    """No such invoice in this tenant (another tenant's invoice reads exactly like this)."""


class InvoiceLocked(InvoiceNotPayable):
    """The invoice is locked and cannot be charged."""


class InvoiceAlreadyPaid(InvoiceNotPayable):
    """The invoice has already been paid."""


class InvoiceMismatch(InvoiceNotPayable):
    """The charge's amount or currency differs from what the invoice states (None: that one matches)."""

    def __init__(self, invoice_id: str, amount_due: int | None, currency: str | None) -> None:
        super().__init__(invoice_id)
        self.amount_due = amount_due
        self.currency = currency


class IdempotencyKeyReused(StoreError):
    """The (client, Idempotency-Key) already created a charge from a different request body."""


class IdempotencyKeyInFlight(StoreError):
    """A concurrent request with the same (client, Idempotency-Key) holds its record right now."""


# -- OAuth: refresh-token families (authorization codes: stores.codes) ------------------------------------------

class RotationFailed(StoreError):
    """The refresh token could not be rotated; `reused` says whether it had already been rotated."""

    def __init__(self, reused: bool, family_revoked: bool) -> None:
        super().__init__("reused" if reused else "family revoked" if family_revoked else "not active")
        self.reused = reused
        self.family_revoked = family_revoked


# -- single-use JWT ids (DPoP proofs, client assertions): stores.replay -----------------------------

class Replayed(StoreError):
    """This JWT id was already seen within its window (RFC 9449 11.1, RFC 7523 3 item 7)."""


# -- signing keys and administration (never reach a client) -----------------------------------------

class KeyStateConflict(StoreError):
    """Another rotation changed the key first (the conditional write lost)."""


class TenantExists(StoreError):
    """A tenant with this id is already stored (create never overwrites)."""


class ClientExists(StoreError):
    """A client with this id is already registered."""


class ClientNotFound(StoreError, LookupError):
    """No confidential client with this id (rotation target)."""


class UserExists(StoreError, ValueError):
    """`UserStore.create` without overwrite for a username the tenant already has."""


class ResourceExists(StoreError):
    """A protected resource with this identifier is already registered (RFC 8707 2)."""


class ResourceNotFound(StoreError, LookupError):
    """No protected resource with this identifier is registered."""
