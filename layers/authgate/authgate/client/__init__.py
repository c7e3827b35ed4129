"""Client-side helpers: reading any error response of the contract into one value."""

from authgate.client.reader import ErrorReading, parse_retry_after, read_error

__all__ = ["ErrorReading", "parse_retry_after", "read_error"]
