"""failures.api_error: one table from store exception to ApiError, looked up along the exception's MRO."""

from __future__ import annotations

from authgate.billing.errors import InvoiceNotPayable
from authgate.clients.errors import ClientNotFound, MetadataRefused
from authgate.failures import ERRORS, api_error
from authgate.single_use.errors import (
    CodeAlreadyUsed,
    CodeError,
    CodeExpired,
    PushedRequestOfAnotherClient,
    RotationFailed,
)
from authgate.stores.exceptions import StorageUnavailable, StoreError


def test_the_most_specific_entry_wins() -> None:
    used, expired = api_error(CodeAlreadyUsed()), api_error(CodeExpired())
    assert used is not None and expired is not None
    assert (used.code, used.detail) == ("invalid_grant", "The authorization code has already been used.")
    assert (expired.code, expired.detail, expired.internal) == (
        "invalid_grant", "The authorization code is invalid or expired.", "expired")


def test_a_subclass_without_its_own_entry_takes_its_bases() -> None:
    class CodeRevoked(CodeError):
        reason = "revoked"

    error = api_error(CodeRevoked())
    assert error is not None and (error.code, error.internal) == ("invalid_grant", "revoked")
    par = api_error(PushedRequestOfAnotherClient())
    assert par is not None and par.code == "invalid_request_uri"
    assert par.detail == "The request_uri was not pushed by this client_id."


def test_unavailable_storage_is_503_with_retry_after() -> None:
    error = api_error(StorageUnavailable("clients.get", "ThrottlingException"))
    assert error is not None
    assert (error.code, error.headers, error.oauth_error) == (
        "service_unavailable", {"Retry-After": "1"}, "temporarily_unavailable")


def test_a_trail_aws_cannot_read_is_503_with_awss_code_for_the_log_only() -> None:
    from botocore.exceptions import ClientError

    from authgate.audit_trail.errors import TrailUnreadable

    denied = ClientError({"Error": {"Code": "AccessDenied", "Message": "Access Denied for arn:aws:iam::1:role/x"}},
                         "GetObject")
    error = api_error(TrailUnreadable(denied))
    assert error is not None
    assert (error.code, error.status, error.headers, error.internal) == (
        "service_unavailable", 503, {"Retry-After": "60"}, "audit trail: GetObject AccessDenied")
    assert "AccessDenied" not in error.detail and "arn:" not in error.detail


def test_an_unanswered_rotation_is_503_with_retry_after_and_the_reason_for_the_log_only() -> None:
    from authgate.tokens.rotation_request import RotationUnanswered

    error = api_error(RotationUnanswered("Invoke RotateKeysFunction: TooManyRequestsException"))
    assert error is not None
    assert (error.code, error.status, error.headers, error.internal) == (
        "service_unavailable", 503, {"Retry-After": "1"}, "Invoke RotateKeysFunction: TooManyRequestsException")
    assert error.detail == ("The signing-key rotation function did not answer, so what this step did is unknown: "
                            "look at the signing keys, then rotate again in a moment if you still need to (a step "
                            "moves only what the overlap rule allows).")


def test_exceptions_outside_the_table_are_not_domain_failures() -> None:
    for exc in (ValueError("x"), StoreError("x"), InvoiceNotPayable("inv_1"), ClientNotFound("c")):
        assert api_error(exc) is None
    # A failure of storage itself, or a rule of the domain defined beside its model, below the stores; the audit
    # trail's reads, whose S3 and KMS calls are the trail's own, not a store's; and the rotation function's missing
    # answer to the console (a module of the standard library's imports only).
    below = {"authgate.stores.exceptions", "authgate.billing.errors", "authgate.single_use.errors",
             "authgate.clients.errors", "authgate.tenants.errors", "authgate.users.errors",
             "authgate.authorization_details.errors", "authgate.approvals.errors",
             "authgate.event_streams.errors", "authgate.audit_trail.errors", "authgate.tokens.rotation_request"}
    assert {cls.__module__ for cls in ERRORS} == below
    refresh = api_error(RotationFailed(reused=True, family_revoked=True))
    assert refresh is not None and refresh.detail == "The refresh token has already been used; its grant is revoked."


def test_a_refused_metadata_document_is_invalid_client_or_retry_later() -> None:
    refused = api_error(MetadataRefused("client_metadata_invalid", "The document is invalid.", internal="why"))
    assert refused is not None
    assert (refused.code, refused.status, refused.detail, refused.internal, refused.oauth_error, refused.headers) == (
        "client_metadata_invalid", 400, "The document is invalid.", "why", "invalid_client", {})
    spent = api_error(MetadataRefused("client_metadata_rate_limited", "Too many.", retry_after=42))
    assert spent is not None
    assert (spent.code, spent.status, spent.oauth_error, spent.headers) == (
        "client_metadata_rate_limited", 429, "temporarily_unavailable", {"Retry-After": "42"})
