"""What a store reports when it cannot do what it was asked: domain exceptions, raised at the store edge.

Stores translate DynamoDB's answers (ConditionalCheckFailed, TransactionCanceled reasons,
throttling) into these, and know nothing of HTTP or the error catalogue. authgate.failures is
the one mapping from these to the ApiError a client sees; a flow that must act first (revoke a
replayed code's grant, say) catches the exception, acts, and raises that mapping's answer.
Powertools' idempotency persistence layer is the model (IdempotencyItemAlreadyExistsError ...).
Every store exception is here, and this module imports nothing: the record an exception carries
(a stores.codes.AuthorizationCode, a stores.idempotency.IdempotencyRecord) is typed `Any`.
"""

from __future__ import annotations

from typing import Any


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


class IdempotencyKeyUsed(StoreError):
    """The (client, Idempotency-Key) already created a charge: `record` says which, and with what body."""

    def __init__(self, record: Any) -> None:  # the IdempotencyRecord
        super().__init__(record.charge_id)
        self.record = record


class IdempotencyKeyInFlight(StoreError):
    """A concurrent request with the same (client, Idempotency-Key) holds its record right now."""


# -- OAuth: authorization codes (stores.codes) and pushed authorization requests (stores.pushed_requests) --

class CodeError(StoreError):
    """The code cannot be exchanged; every subclass means invalid_grant at the token endpoint."""

    reason = "invalid"

    def __init__(self, record: Any = None) -> None:  # the AuthorizationCode, when read
        super().__init__(self.reason)
        self.record = record


class CodeNotFound(CodeError):
    """No such code (never issued, or garbage-collected by TTL)."""

    reason = "unknown"


class CodeExpired(CodeError):
    """Issued but past expires_at (moto and DynamoDB TTL may both keep the item for a while)."""

    reason = "expired"


class CodeAlreadyUsed(CodeError):
    """A second exchange: the caller must revoke every token of `record.grant_id` (RFC 6749 4.1.2)."""

    reason = "already_used"


class PushedRequestError(StoreError):
    """The request_uri cannot be used; every subclass is invalid_request_uri at /authorize."""

    reason = "invalid"


class PushedRequestNotFound(PushedRequestError):
    reason = "unknown"


class PushedRequestUsed(PushedRequestError):
    reason = "already_used"


class PushedRequestExpired(PushedRequestError):
    reason = "expired"


class PushedRequestOfAnotherClient(PushedRequestError):
    reason = "another_client"


# -- OAuth: refresh-token families --------------------------------------------------------------------------

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


class TenantNotFound(StoreError, LookupError):
    """No tenant with this id (an update's target)."""


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
