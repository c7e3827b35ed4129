"""Storage faults at the store edge: the one classifier of "not now, retry later".

Every store wraps its AWS calls in `aws_faults()` (DynamoDB, and the KMS and Secrets Manager
calls of the signer and the sealing key): throttling, an outage or a timeout
becomes StorageUnavailable (a domain exception; authgate.failures makes it 503 with
Retry-After, `temporarily_unavailable` on OAuth surfaces). Other ClientErrors propagate so the
store can translate its own codes: `refused=` turns a failed write condition into the refusal
its domain package defines (errors.py), and `condition_failed` answers the same question where a
store reads the failed item first (ConditionalCheckFailedException). The limiter asks
`is_unavailable` the same question to fail open, and a cancelled transaction's per-item reasons
are judged by the same sets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from authgate.stores.exceptions import StorageUnavailable

# Error codes DynamoDB (and the SDK's retry layer) use for "not now, try again".
UNAVAILABLE_CODES = frozenset({
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
    "InternalServerError",
    "ServiceUnavailable",
    "LimitExceededException",
})
# A cancelled transaction names a reason per item (TransactWriteItems CancellationReasons); these
# mean "not now" too. TransactionConflict is not among them: it names an item another request is
# changing, which the store reports as a domain conflict.
UNAVAILABLE_CANCELLATION_REASONS = frozenset({
    "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded",
}) | UNAVAILABLE_CODES


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


def condition_failed(exc: BaseException) -> bool:
    """True when a conditional write was refused because its condition did not hold."""
    from botocore.exceptions import ClientError

    return (isinstance(exc, ClientError)
            and exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException")


def cancellation_codes(response: dict[str, Any]) -> list[str]:
    """The per-item reason codes of a TransactionCanceledException, in item order ("None": passed)."""
    return [str(reason.get("Code", "None")) for reason in response.get("CancellationReasons") or []]


def cancellation_reasons(exc: BaseException) -> set[str]:
    """The set of per-item reason codes of a TransactionCanceledException."""
    return set(cancellation_codes(getattr(exc, "response", {})))


def unavailable(operation: str, reason: str) -> StorageUnavailable:
    """The exception a store raises for a fault it detected itself (unprocessed keys, no key)."""
    return StorageUnavailable(operation, reason)


@contextmanager
def aws_faults(operation: str = "dynamodb", *,
               refused: Callable[[], Exception] | None = None) -> Iterator[None]:
    """Translate throttling/outage of any AWS call inside the block (DynamoDB, KMS, Secrets Manager)
    into StorageUnavailable (`raise ... from`),
    and a failed write condition into `refused()` when given."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        yield
    except (ClientError, BotoCoreError) as exc:
        if refused is not None and condition_failed(exc):
            raise refused() from exc
        if is_unavailable(exc):
            code = exc.response["Error"]["Code"] if isinstance(exc, ClientError) else type(exc).__name__
            raise StorageUnavailable(operation, code) from exc
        raise
