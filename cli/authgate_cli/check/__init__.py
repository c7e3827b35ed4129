"""Reading error responses against the contract: the rules behind `authgate check` and the tests."""

from authgate_cli.check.reading import ErrorReading, parse_retry_after, read_error

__all__ = ["ErrorReading", "parse_retry_after", "read_error"]
