"""Why a code, a pushed request, a refresh token or a JWT id could not be used (a second use, an expiry, another client).

Only the exception classes, so authgate.failures (imported by every function's App) can map them
without creating the records' classes at a cold start (single_use.codes, pushed_requests, refresh_tokens).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from authgate.single_use.codes import AuthorizationCode


class CodeError(Exception):
    """The code cannot be exchanged; every subclass means invalid_grant at the token endpoint."""

    reason = "invalid"

    def __init__(self, record: AuthorizationCode | None = None) -> None:  # the record, when read
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


class PushedRequestError(Exception):
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


class RotationFailed(Exception):
    """The refresh token could not be rotated; `reused` says whether it had already been rotated."""

    def __init__(self, reused: bool, family_revoked: bool) -> None:
        super().__init__("reused" if reused else "family revoked" if family_revoked else "not active")
        self.reused = reused
        self.family_revoked = family_revoked


class Replayed(Exception):
    """This JWT id was already seen within its window (RFC 9449 11.1, RFC 7523 3 item 7)."""
