"""Idempotent POST /charges on Powertools' idempotency utility (IETF draft-ietf-httpapi-idempotency-key-header).

- The key is scoped to the calling client: the record id is "charges#" + sha256(client#key).
- The validated request is fingerprinted (Powertools payload validation): the same key with a
  different body is 422 idempotency_key_reused.
- Only a completed success is stored and replayed (status and body, `Idempotent-Replayed: true`).
  A failed attempt raises, Powertools deletes the record, and a retry runs again: a failure
  changed nothing (the charge write is one transaction), so re-running is safe and lets a
  client retry after, say, an invoice is unlocked.
- While the first attempt runs, a retry is 409 idempotency_request_in_progress with Retry-After.
  The in-progress lock expires with the Lambda's remaining time, so an invocation that timed out
  does not block retries for the record's 24 h.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from authgate import aws
from authgate.charges.invocation import lambda_context
from authgate.dependencies import cached
from authgate.errors import ApiError, FieldError
from authgate.errors.model import retry_after
from authgate.logs import get_logger
from authgate.settings import get_settings
from authgate.stores.faults import is_unavailable, unavailable

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

    from authgate.http.request import Request

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
RECORD_TTL_SECONDS = 24 * 3600
# A charge takes milliseconds; a second later the first attempt has finished or timed out.
IN_PROGRESS_RETRY_AFTER = 1
KEY_PREFIX = "charges"
# RFC 9110 5.6.2 "visible" characters (VCHAR): no space, no control characters, ASCII only.
_VISIBLE_ASCII = re.compile(r"^[\x21-\x7e]+$")


def _bad_key(detail: str) -> ApiError:
    return ApiError("invalid_idempotency_key", detail,
                    field_errors=(FieldError("", detail, location="header", name=HEADER),))


def idempotency_key(request: Request) -> str | None:
    """The request's Idempotency-Key, None when absent, 400 when unusable."""
    values = request.headers.get_all(HEADER)
    if not values:
        return None
    if len(values) > 1:
        raise _bad_key("Send Idempotency-Key once.")
    value = values[0]
    if value == "":
        raise _bad_key("Idempotency-Key must not be empty.")
    if len(value) > MAX_KEY_LENGTH:
        raise _bad_key(f"Idempotency-Key must be at most {MAX_KEY_LENGTH} characters.")
    if not _VISIBLE_ASCII.match(value):
        raise _bad_key("Idempotency-Key must be visible ASCII characters (no spaces).")
    return value


@dataclass(frozen=True)
class ScopedKey:
    """An Idempotency-Key bound to the client that sent it."""

    client_id: str
    key: str

    @property
    def digest(self) -> str:
        # The raw key never reaches storage or logs; only this digest does.
        return hashlib.sha256(f"{self.client_id}#{self.key}".encode()).hexdigest()


def fingerprint(request: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of a validated request (member order and spacing ignored)."""
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


@cached
def persistence() -> DynamoDBPersistenceLayer:
    """One persistence layer per process (it keeps the first config it is given; ours never varies)."""
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

    return DynamoDBPersistenceLayer(table_name=get_settings().tables.idempotency,
                                    key_attr="id", expiry_attr="expiration",
                                    boto3_client=aws.dynamodb())


@dataclass(frozen=True)
class Outcome:
    result: dict[str, Any]
    replayed: bool


def run_once(scoped: ScopedKey, request: dict[str, Any], create: Callable[[], dict[str, Any]]) -> Outcome:
    """Run `create` at most once per (client, key); replay its stored result otherwise."""
    from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig, idempotent_function
    from aws_lambda_powertools.utilities.idempotency.exceptions import (
        IdempotencyAlreadyInProgressError,
        IdempotencyInconsistentStateError,
        IdempotencyPersistenceLayerError,
        IdempotencyValidationError,
    )

    replayed: list[bool] = []

    def mark_replay(response: Any, _record: Any) -> Any:
        replayed.append(True)
        return response

    # A config per call (cheap): it carries this invocation's context and hook. The persistence
    # layer copies the static members from the first config only; they are the same every time.
    config = IdempotencyConfig(
        event_key_jmespath="key",
        payload_validation_jmespath="request",
        raise_on_no_idempotency_key=True,
        expires_after_seconds=RECORD_TTL_SECONDS,
        hash_function="sha256",
        lambda_context=lambda_context(),
        response_hook=mark_replay,  # type: ignore[arg-type]  # Powertools types the hook narrowly
    )

    created: list[dict[str, Any]] = []

    def charge_once(data: dict[str, Any]) -> dict[str, Any]:
        created.append(create())
        return created[0]

    idempotent = idempotent_function(charge_once, data_keyword_argument="data",
                                     persistence_store=persistence(), config=config,
                                     key_prefix=KEY_PREFIX)
    try:
        result = idempotent(data={"key": scoped.digest, "request": request})
    except IdempotencyValidationError:
        raise ApiError("idempotency_key_reused",
                       "This Idempotency-Key was already used with a different request body.") from None
    except (IdempotencyAlreadyInProgressError, IdempotencyInconsistentStateError):
        raise retry_after(ApiError("idempotency_request_in_progress",
                                   "A request with this Idempotency-Key is still being processed."),
                          IN_PROGRESS_RETRY_AFTER) from None
    except IdempotencyPersistenceLayerError as exc:
        if created:
            # The charge is written but its record could not be marked complete: the client is
            # told the truth (201); a retry finds the charge through its marker (stores.charges).
            get_logger().warning("idempotency record not completed", extra={"error": str(exc.__cause__)})
            return Outcome(created[0], False)
        cause = exc.__cause__
        if cause is not None and is_unavailable(cause):
            raise unavailable(f"idempotency store: {type(cause).__name__}") from exc
        raise
    return Outcome(result, bool(replayed))
