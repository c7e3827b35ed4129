"""Idempotency-Key on POST /charges (draft-ietf-httpapi-idempotency-key-header): per client, fingerprinted, successes only.

The rules: docs/charges.md ("Idempotency rules").
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import TYPE_CHECKING, Any, NamedTuple

from authgate import clock
from authgate.billing.idempotency import from_item
from authgate.errors import ApiError, FieldError
from authgate.stores.idempotency import IdempotencyStore

if TYPE_CHECKING:
    from authgate.billing.idempotency import IdempotencyRecord
    from authgate.request_protocol import RequestView
    from authgate.stores.batch import BatchRead, Pending
    from authgate.tokens.principal import Principal

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
# RFC 9110 5.6.2 "visible" characters (VCHAR): no space, no control characters, ASCII only.
_VISIBLE_ASCII = re.compile(r"^[\x21-\x7e]+$")


def _bad_key(detail: str) -> ApiError:
    return ApiError("invalid_idempotency_key", detail,
                    field_errors=(FieldError("", detail, location="header", name=HEADER),))


def idempotency_key(request: RequestView) -> str | None:
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


def digest(client_id: str, key: str) -> str:
    """The key bound to the client that sent it, as stored: sha256(client#key)."""
    return hashlib.sha256(f"{client_id}#{key}".encode()).hexdigest()


def fingerprint(request: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of a validated request (member order and spacing ignored)."""
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


class KeyedRequest(NamedTuple):
    """A POST's Idempotency-Key as the header gave it: its value, or the 400 to raise in turn.

    Read before the bearer check so its record joins the guard's batch read; an unusable header
    is still reported where it always was, after authentication and the rate limit.
    """

    key: str | None
    error: ApiError | None = None

    @classmethod
    def of(cls, request: RequestView) -> KeyedRequest:
        try:
            return cls(idempotency_key(request))
        except ApiError as error:
            return cls(None, error)

    def require(self) -> str | None:
        """The key (None without one), or the header's 400."""
        if self.error is not None:
            raise self.error
        return self.key

    def prefetch(self, principal: Principal, reads: BatchRead) -> Pending | None:
        """Register the (client, key) record in the request's batch read (tokens.guard)."""
        return IdempotencyStore().prefetch(reads, digest(principal.client_id, self.key)) if self.key else None


def recorded(pending: Pending | None) -> IdempotencyRecord | None:
    """The live record a prefetched read found, if any."""
    item = pending.item if pending is not None else None
    return from_item(item, clock.seconds()) if item else None
