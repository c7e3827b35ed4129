"""Domain failures -> the ApiError a client sees: the one mapping (stores raise, flows and the App ask here).

Stores report what went wrong in their own terms: a failure of storage itself
(stores.exceptions), or a rule of the domain the write broke, as the exception its domain
package defines (billing.errors, single_use.errors, clients.errors, ...). Each function's App is built with
`translate=api_error`, so an exception no flow handled (a throttled read anywhere, say) is
still answered in the contract; a flow that must act first (revoke a replayed code's grant)
catches the exception, acts, then raises `api_error(exc)`. A new exception that reaches a
client gets a function and its line in `ERRORS`; `None` means "not a domain failure" (the App's 500).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from authgate.approvals.errors import LinkInvalid, PollRefused
from authgate.audit_trail.errors import TrailUnreadable
from authgate.authorization_details.errors import DetailsExceeded, DetailsInvalid
from authgate.billing.errors import (
    IdempotencyKeyInFlight,
    IdempotencyKeyReused,
    InvoiceAlreadyPaid,
    InvoiceLocked,
    InvoiceMismatch,
    InvoiceNotFound,
)
from authgate.clients.errors import MetadataRefused
from authgate.errors import ApiError, Code, FieldError
from authgate.errors.challenges import StepUp, bearer
from authgate.errors.model import retry_after
from authgate.event_streams.errors import StreamExists, StreamNotFound, VerificationTooSoon
from authgate.single_use.errors import (
    CodeAlreadyUsed,
    CodeError,
    PushedRequestError,
    RotationFailed,
)
from authgate.stores.exceptions import ConcurrentUpdate, SecretUnusable, StorageUnavailable
from authgate.tenants.errors import StrongAuthenticationRequired
from authgate.tokens.rotation_request import RotationUnanswered
from authgate.users.errors import ResetLinkInvalid

# How soon a client told "not now" may come back (RFC 9110 10.2.3); storage retries and
# conflicts resolve within a second.
RETRY_AFTER_SECONDS = 1
# A trail S3 or KMS cannot serve now: throttling passes in seconds, a denied or missing key or bucket is an operator's
# to fix; a minute either way.
TRAIL_RETRY_AFTER_SECONDS = 60
KEY_REUSED = "This Idempotency-Key was already used with a different request body."
# RFC 9126 4: a request_uri is one-time use, bound to its client, short-lived.
PUSHED_REQUEST_DETAILS = {
    "unknown": "The request_uri is unknown. Push the authorization request again (POST /oauth/par).",
    "already_used": "The request_uri has already been used; each is good for one authorization request. "
                    "Push the authorization request again.",
    "expired": "The request_uri has expired. Push the authorization request again and use it at once.",
    "another_client": "The request_uri was not pushed by this client_id.",
}


def _unavailable(exc: StorageUnavailable) -> ApiError:
    # 503, and temporarily_unavailable on OAuth surfaces (RFC 6749 4.1.2.1).
    return ApiError("service_unavailable", "The service is temporarily unavailable; retry after Retry-After seconds.",
                    internal=str(exc), headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
                    oauth_error="temporarily_unavailable")


def _trail_unreadable(exc: TrailUnreadable) -> ApiError:
    # The console's Events pages: S3 or KMS refused or failed a read of the audit trail. Nothing the operator did;
    # AWS's code goes to the log once (the App logs `internal`), never to the page.
    return ApiError("service_unavailable", "The audit trail cannot be read now: AWS refused or failed the read. "
                    "Try again in a minute; if it goes on, the console's log names AWS's error under this request id.",
                    internal=f"audit trail: {exc.operation or 'AWS'} {exc.code}",
                    headers={"Retry-After": str(TRAIL_RETRY_AFTER_SECONDS)})


def _rotation_unanswered(exc: RotationUnanswered) -> ApiError:
    # The console's "Rotate now": the rotation function refused, throttled, failed or timed out (the log says which).
    return ApiError("service_unavailable", "The signing-key rotation function did not answer, so what this step did "
                    "is unknown: look at the signing keys, then rotate again in a moment if you still need to (a step "
                    "moves only what the overlap rule allows).", internal=str(exc),
                    headers={"Retry-After": str(RETRY_AFTER_SECONDS)})


def _secret_unusable(exc: SecretUnusable) -> ApiError:
    # A deployment fault: the operator's to fix, nothing the client can do (500, details in the log only).
    return ApiError("internal_error", internal=str(exc))


def _concurrent_update(exc: ConcurrentUpdate) -> ApiError:
    return retry_after(ApiError("concurrent_update", "Another request is changing the same invoice; retry.",
                                internal=str(exc)), RETRY_AFTER_SECONDS)


def _key_reused(exc: IdempotencyKeyReused) -> ApiError:
    return ApiError("idempotency_key_reused", KEY_REUSED)


def _key_in_flight(exc: IdempotencyKeyInFlight) -> ApiError:
    return retry_after(ApiError("idempotency_request_in_progress",
                                "A request with this Idempotency-Key is still being processed.",
                                internal=str(exc)), RETRY_AFTER_SECONDS)


def _invoice_not_found(exc: InvoiceNotFound) -> ApiError:
    return ApiError("invoice_not_found", f"No invoice {exc.invoice_id} exists.",
                    field_errors=(FieldError("/invoice_id", "does not name an invoice of this tenant"),))


def _invoice_locked(exc: InvoiceLocked) -> ApiError:
    return ApiError("invoice_locked", f"Invoice {exc.invoice_id} is locked and cannot be charged.")


def _invoice_paid(exc: InvoiceAlreadyPaid) -> ApiError:
    return ApiError("invoice_already_paid", f"Invoice {exc.invoice_id} has already been paid.")


def _invoice_mismatch(exc: InvoiceMismatch) -> ApiError:
    errors = []
    if exc.amount_due is not None:
        errors.append(FieldError("/amount", f"must equal the invoice's amount due ({exc.amount_due})"))
    if exc.currency is not None:
        errors.append(FieldError("/currency", f"must equal the invoice's currency ({exc.currency})"))
    return ApiError("validation_failed", f"The charge does not match invoice {exc.invoice_id}; see errors.",
                    field_errors=tuple(errors))


def _code_used(exc: CodeAlreadyUsed) -> ApiError:
    return ApiError("invalid_grant", "The authorization code has already been used.")


def _code_invalid(exc: CodeError) -> ApiError:
    return ApiError("invalid_grant", "The authorization code is invalid or expired.", internal=exc.reason)


def _pushed_request(exc: PushedRequestError) -> ApiError:
    return ApiError("invalid_request_uri", PUSHED_REQUEST_DETAILS.get(exc.reason, PUSHED_REQUEST_DETAILS["unknown"]),
                    internal=f"request_uri {exc.reason}")


def _metadata_refused(exc: MetadataRefused) -> ApiError:
    # invalid_client (RFC 6749 5.2): a page at the authorization endpoint, 401 at the token and PAR
    # endpoints (http.shapes.oauth); a spent fetch budget is "retry later" (RFC 6749 4.1.2.1).
    if exc.retry_after:
        return ApiError(exc.code, exc.detail, internal=exc.internal, headers={"Retry-After": str(exc.retry_after)},
                        oauth_error="temporarily_unavailable")
    return ApiError(exc.code, exc.detail, internal=exc.internal, oauth_error="invalid_client")


def _rotation_failed(exc: RotationFailed) -> ApiError:
    if exc.reused:
        return ApiError("invalid_grant", "The refresh token has already been used; its grant is revoked.")
    return ApiError("invalid_grant", "The refresh token has been revoked.")


def _strong_authentication(exc: StrongAuthenticationRequired) -> ApiError:
    # RFC 9470 3; at a resource, tokens.guard.step_up_challenge puts it on the request's scheme with the
    # resource's metadata URL.
    return ApiError("insufficient_user_authentication", exc.detail, headers={"WWW-Authenticate": bearer(
        error="insufficient_user_authentication", description=exc.detail,
        step_up=StepUp(exc.acr_values, exc.max_age))})


# CIBA Core 11: each answer to a poll that gets no tokens; all are 400 (RFC 6749 5.2).
POLL_ANSWERS: dict[str, tuple[Code, str]] = {
    "unknown": ("invalid_grant", "The auth_req_id is unknown, was issued to another client or was already redeemed."),
    "pending": ("authorization_pending", "The user has not yet approved the request; poll again after the interval."),
    "slow_down": ("slow_down", "Polled sooner than the interval; the interval is now 5 seconds longer."),
    "expired": ("expired_token", "The request expired before it was approved; start a new one."),
    "denied": ("access_denied", "The user denied the request."),
}


def _poll_refused(exc: PollRefused) -> ApiError:
    code, detail = POLL_ANSWERS[exc.reason]
    return ApiError(code, detail, status=400, internal=f"auth_req_id {exc.reason}")


def _approval_link_invalid(_exc: LinkInvalid) -> ApiError:
    return ApiError("approval_link_invalid", "This approval link is unknown, has expired, was already used, or its "
                    "request was already decided. Each link works once, until the request expires.")


def _reset_link_invalid(_exc: ResetLinkInvalid) -> ApiError:
    return ApiError("password_reset_link_invalid", "This link to choose a new password is unknown, has expired "
                    "(links work for 15 minutes) or was already used. Ask for a new one from the sign-in page.")


def _details_invalid(exc: DetailsInvalid) -> ApiError:
    # RFC 9396 5: the OAuth error is the code itself.
    return ApiError("invalid_authorization_details", str(exc))


def _details_exceeded(exc: DetailsExceeded) -> ApiError:
    return ApiError("authorization_details_exceeded", str(exc))


def _stream_exists(_exc: StreamExists) -> ApiError:
    # OpenID Shared Signals Framework 1.0 8.1.1.1: one stream per receiver, 409.
    return ApiError("stream_exists", "This receiver already has a stream; read it, update or replace it, or delete "
                                     "it first.")


def _stream_gone(_exc: StreamNotFound) -> ApiError:
    # The stream was deleted (or deleted and created again) between the read and the write.
    return ApiError("stream_not_found", "This receiver's stream was deleted meanwhile.")


def _verification_too_soon(exc: VerificationTooSoon) -> ApiError:
    # SSF 1.0 8.1.4.2: 429, with min_verification_interval's remainder as Retry-After.
    return retry_after(ApiError("rate_limited", "Verification was asked for less than 10 seconds ago; ask again "
                                                "after Retry-After seconds."), exc.retry_after)


# Exception type -> its ApiError. A subclass without its own line takes its nearest base's
# (looked up along the MRO, as Starlette's and Powertools' exception handlers do).
ERRORS: dict[type[BaseException], Callable[[Any], ApiError]] = {
    StorageUnavailable: _unavailable,
    SecretUnusable: _secret_unusable,
    TrailUnreadable: _trail_unreadable,
    ConcurrentUpdate: _concurrent_update,
    IdempotencyKeyReused: _key_reused,
    IdempotencyKeyInFlight: _key_in_flight,
    InvoiceNotFound: _invoice_not_found,
    InvoiceLocked: _invoice_locked,
    InvoiceAlreadyPaid: _invoice_paid,
    InvoiceMismatch: _invoice_mismatch,
    CodeAlreadyUsed: _code_used,
    CodeError: _code_invalid,
    PushedRequestError: _pushed_request,
    RotationFailed: _rotation_failed,
    MetadataRefused: _metadata_refused,
    StrongAuthenticationRequired: _strong_authentication,
    ResetLinkInvalid: _reset_link_invalid,
    DetailsInvalid: _details_invalid,
    DetailsExceeded: _details_exceeded,
    PollRefused: _poll_refused,
    LinkInvalid: _approval_link_invalid,
    StreamExists: _stream_exists,
    StreamNotFound: _stream_gone,
    VerificationTooSoon: _verification_too_soon,
    RotationUnanswered: _rotation_unanswered,
}


def api_error(exc: BaseException) -> ApiError | None:
    """The ApiError for a domain exception, or None when `exc` is not one."""
    for cls in type(exc).__mro__:
        make = ERRORS.get(cls)
        if make is not None:
            return make(exc)
    return None


def as_api_error(exc: BaseException) -> ApiError:
    """`api_error(exc)` for a flow that knows `exc` is a domain failure (`raise as_api_error(e) from e`)."""
    error = api_error(exc)
    if error is None:
        raise TypeError(f"{type(exc).__name__} is not a domain failure") from exc
    return error
