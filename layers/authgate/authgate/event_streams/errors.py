"""The stream management API's refusals (OpenID Shared Signals Framework 1.0 8.1), raised by stores.streams.

Only the exception classes, so authgate.failures maps them without loading the records.
"""

from __future__ import annotations


class StreamNotFound(Exception):
    """The receiver has no stream with this stream_id (SSF 1.0 8.1: 404), or it was deleted meanwhile."""


class StreamExists(Exception):
    """The receiver already has its one stream (SSF 1.0 8.1.1.1: 409)."""


class VerificationTooSoon(Exception):
    """A verification asked for within min_verification_interval of the last (SSF 1.0 8.1.4.2: 429)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"retry after {retry_after} s")
        self.retry_after = retry_after
