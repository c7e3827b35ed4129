"""stores.exceptions: the failures of storage itself, and that the domain's refusals are not among them."""

from __future__ import annotations

from authgate.billing.errors import (
    IdempotencyKeyInFlight,
    IdempotencyKeyReused,
    IdempotencyKeyUsed,
    InvoiceNotPayable,
)
from authgate.clients.errors import ClientExists, ClientNotFound
from authgate.resources.errors import ResourceExists, ResourceNotFound
from authgate.single_use.errors import CodeError, PushedRequestError, Replayed, RotationFailed
from authgate.stores import exceptions as e
from authgate.tenants.errors import TenantExists, TenantNotFound
from authgate.users.errors import UserExists


def test_storage_unavailable_names_the_operation_and_the_reason() -> None:
    error = e.StorageUnavailable("charges.create", "ThrottlingException")
    assert (error.operation, error.reason, str(error)) == (
        "charges.create", "ThrottlingException", "charges.create: ThrottlingException")


def test_storage_failures_are_store_errors_and_the_domains_refusals_are_not() -> None:
    storage = [e.StorageUnavailable, e.ConcurrentUpdate, e.KeyStateConflict, e.SecretUnusable]
    assert all(issubclass(k, e.StoreError) for k in storage)
    # A rule of the domain a write broke is defined beside its model, below the stores.
    domain = [InvoiceNotPayable, IdempotencyKeyReused, IdempotencyKeyUsed, IdempotencyKeyInFlight, CodeError,
              PushedRequestError, RotationFailed, Replayed, TenantExists, TenantNotFound, ClientExists,
              ClientNotFound, UserExists, ResourceExists, ResourceNotFound]
    assert not any(issubclass(k, e.StoreError) for k in domain)
    assert issubclass(ClientNotFound, LookupError) and issubclass(UserExists, ValueError)
    assert issubclass(TenantNotFound, LookupError) and issubclass(ResourceNotFound, LookupError)
