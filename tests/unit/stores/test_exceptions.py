"""stores.exceptions: what each store refusal carries, and the families callers catch them by."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from authgate.stores import exceptions as e


def test_storage_unavailable_names_the_operation_and_the_reason() -> None:
    error = e.StorageUnavailable("charges.create", "ThrottlingException")
    assert (error.operation, error.reason, str(error)) == (
        "charges.create", "ThrottlingException", "charges.create: ThrottlingException")


@pytest.mark.parametrize("kind", [e.InvoiceNotFound, e.InvoiceLocked, e.InvoiceAlreadyPaid])
def test_an_invoice_refusal_names_the_invoice(kind: type[e.InvoiceNotPayable]) -> None:
    error = kind("inv_1")
    assert (error.invoice_id, str(error), isinstance(error, e.InvoiceNotPayable)) == ("inv_1", "inv_1", True)


def test_an_invoice_mismatch_says_what_is_due() -> None:
    error = e.InvoiceMismatch("inv_1", 1200, "usd")
    assert (error.invoice_id, error.amount_due, error.currency, isinstance(error, e.InvoiceNotPayable)) == (
        "inv_1", 1200, "usd", True)


def test_a_used_idempotency_key_carries_its_record() -> None:
    record = SimpleNamespace(charge_id="ch_1")
    error = e.IdempotencyKeyUsed(record)
    assert (error.record, str(error)) == (record, "ch_1")


@pytest.mark.parametrize(("kind", "reason"), [
    (e.CodeError, "invalid"), (e.CodeNotFound, "unknown"), (e.CodeExpired, "expired"),
    (e.CodeAlreadyUsed, "already_used"),
])
def test_code_errors_say_why_and_keep_the_record(kind: type[e.CodeError], reason: str) -> None:
    record = object()
    error = kind(record)
    assert (error.reason, str(error), error.record, isinstance(error, e.CodeError)) == (reason, reason, record, True)
    assert kind().record is None


@pytest.mark.parametrize(("kind", "reason"), [
    (e.PushedRequestError, "invalid"), (e.PushedRequestNotFound, "unknown"), (e.PushedRequestUsed, "already_used"),
    (e.PushedRequestExpired, "expired"), (e.PushedRequestOfAnotherClient, "another_client"),
])
def test_pushed_request_errors_say_why(kind: type[e.PushedRequestError], reason: str) -> None:
    assert (kind.reason, issubclass(kind, e.PushedRequestError)) == (reason, True)


@pytest.mark.parametrize(("reused", "family_revoked", "message"), [
    (True, False, "reused"), (True, True, "reused"), (False, True, "family revoked"), (False, False, "not active"),
])
def test_a_failed_rotation_says_which_rule(reused: bool, family_revoked: bool, message: str) -> None:
    error = e.RotationFailed(reused, family_revoked)
    assert (str(error), error.reused, error.family_revoked) == (message, reused, family_revoked)


def test_every_refusal_is_a_store_error_and_lookups_and_values_are_caught_as_such() -> None:
    kinds = [e.StorageUnavailable, e.ConcurrentUpdate, e.InvoiceNotPayable, e.IdempotencyKeyReused,
             e.IdempotencyKeyUsed, e.IdempotencyKeyInFlight, e.CodeError, e.PushedRequestError, e.RotationFailed,
             e.Replayed, e.KeyStateConflict, e.TenantExists, e.ClientExists, e.ClientNotFound, e.UserExists]
    assert all(issubclass(k, e.StoreError) for k in kinds)
    assert issubclass(e.ClientNotFound, LookupError) and issubclass(e.UserExists, ValueError)
