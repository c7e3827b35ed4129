"""Storage faults at the store edge: DynamoDB throttling or outage -> 503 service_unavailable.

Every store wraps its DynamoDB calls in `dynamodb_faults()`. Throttling and unavailability
become ApiError("service_unavailable") with Retry-After (RFC 9110 10.2.3); on OAuth surfaces
the same error is `temporarily_unavailable` (RFC 6749 4.1.2.1). Other ClientErrors propagate
unchanged so the store can translate its own codes (ConditionalCheckFailedException, ...).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from authgate.errors import ApiError

# Error codes DynamoDB (and the SDK's retry layer) use for "not now, try again".
UNAVAILABLE_CODES = frozenset({
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
    "InternalServerError",
    "ServiceUnavailable",
    "LimitExceededException",
})
# A cancelled transaction names the reason per item; these reasons mean "not now" too.
UNAVAILABLE_CANCELLATION_REASONS = frozenset({
    "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded",
    "TransactionConflict",
})
RETRY_AFTER_SECONDS = 1


def unavailable(internal: str) -> ApiError:
    """The 503 a client sees when storage is throttled or down; nothing was changed."""
    return ApiError(
        "service_unavailable",
        "The service is temporarily unavailable; retry after Retry-After seconds.",
        internal=internal,
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        oauth_error="temporarily_unavailable",
    )


def is_unavailable(exc: BaseException) -> bool:
    """True for a throttling/outage ClientError or a connection/read timeout."""
    from botocore.exceptions import ClientError, HTTPClientError
    from botocore.exceptions import ConnectionError as BotoConnectionError

    if isinstance(exc, ClientError):
        code = exc.response.get("Error", {}).get("Code", "")
        if code == "TransactionCanceledException":
            return bool(cancellation_reasons(exc) & UNAVAILABLE_CANCELLATION_REASONS)
        return code in UNAVAILABLE_CODES
    # ConnectTimeoutError/EndpointConnectionError derive from ConnectionError;
    # ReadTimeoutError/ConnectionClosedError from HTTPClientError.
    return isinstance(exc, (BotoConnectionError, HTTPClientError))


def cancellation_reasons(exc: BaseException) -> set[str]:
    """The per-item reason codes of a TransactionCanceledException ("None" for items that passed)."""
    reasons = getattr(exc, "response", {}).get("CancellationReasons") or []
    return {str(r.get("Code", "None")) for r in reasons}


@contextmanager
def dynamodb_faults(operation: str = "dynamodb") -> Iterator[None]:
    """Translate throttling/outage inside the block into service_unavailable (`raise ... from`)."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        yield
    except (ClientError, BotoCoreError) as exc:
        if is_unavailable(exc):
            code = exc.response["Error"]["Code"] if isinstance(exc, ClientError) else type(exc).__name__
            raise unavailable(f"{operation}: {code}") from exc
        raise
