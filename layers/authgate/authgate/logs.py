"""Structured JSON logging: one line per record on stdout, every record redacted (authgate.redaction).

The lines keep the shape Powertools' Logger gave them (level, location, message, timestamp,
service, correlation_id, xray_trace_id, the extra keys, and for an exception its text, name and
structured stack_trace), so dashboards and queries keep working. Written on the standard
library's logging rather than through Powertools, whose Logger costs cold starts and warm CPU
(docs/decisions.md, measured shortcuts).
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
import traceback
from collections.abc import Callable
from types import FrameType
from typing import Any

from authgate.redaction import REDACTED, is_secret_key, redact
from authgate.settings import log_level

__all__ = ["FORMATTER", "REDACTED", "JsonFormatter", "always_line", "get_logger", "info_line", "set_correlation_id"]

SERVICE = "authgate"
# What every LogRecord carries; anything else on a record is an `extra` key of the call.
_STANDARD = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


_SECOND: list[Any] = [None, ""]  # (the last whole second formatted, its text)


def _timestamp(second: int, millisecond: int) -> str:
    # Powertools' format: "2026-01-31 12:00:00,123+0000" (UTC). The seconds' text is reused
    # while the second lasts: a warm function logs many records a second.
    if _SECOND[0] != second:
        _SECOND[0], _SECOND[1] = second, time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(second))
    return f"{_SECOND[1]},{millisecond:03d}+0000"


def _xray_trace_id() -> str | None:
    # The X-Ray trace of the current invocation (Lambda sets it per invocation when tracing is on).
    header = os.environ.get("_X_AMZN_TRACE_ID", "")
    return header.split(";", 1)[0].removeprefix("Root=") if header.startswith("Root=") else None


def _stack_trace(exc: BaseException) -> dict[str, Any]:
    frames = traceback.extract_tb(exc.__traceback__)
    return {"type": type(exc).__name__, "value": str(exc), "module": type(exc).__module__,
            "frames": [{"file": f.filename, "line": f.lineno, "function": f.name, "statement": f.line or ""}
                       for f in frames]}


class JsonFormatter(logging.Formatter):
    """A record as one JSON object: the standard keys, then the call's extra keys."""

    def __init__(self) -> None:
        super().__init__()
        self.correlation_id: str | None = None

    def format(self, record: logging.LogRecord) -> str:
        # What the record's caller and the request supplied is redacted; the keys built here
        # from the record's own level, place and time never hold a credential.
        supplied: dict[str, Any] = {
            "message": record.msg if isinstance(record.msg, dict) else record.getMessage(),
            "correlation_id": self.correlation_id,
        }
        for key, value in record.__dict__.items():  # the call's extra keys, in the order it gave them
            if key not in _STANDARD and key[0] != "_":
                supplied[key] = value
        if record.exc_info and record.exc_info[1] is not None:
            supplied["exception"] = self.formatException(record.exc_info)
            supplied["exception_name"] = type(record.exc_info[1]).__name__
            supplied["stack_trace"] = _stack_trace(record.exc_info[1])
        return self.line(record.levelname, f"{record.funcName}:{record.lineno}",
                         _timestamp(int(record.created), int(record.msecs)), supplied)

    def line(self, level: str, location: str, timestamp: str, supplied: dict[str, Any]) -> str:
        """The JSON line: the standard keys, then `supplied` (message, correlation id, extras) redacted,
        None values left out."""
        log: dict[str, Any] = {
            "level": level,
            "location": location,
            "message": None,
            "timestamp": timestamp,
            "service": SERVICE,
            "correlation_id": None,
        }
        trace = _xray_trace_id()
        if trace is not None:
            log["xray_trace_id"] = trace
        for key, value in redact(supplied).items():
            if value is not None:
                log[key] = value
        if log["message"] is None:
            del log["message"]
        if log["correlation_id"] is None:
            del log["correlation_id"]
        return _ENCODER.encode(log)


# One encoder for every record (json.dumps with options builds a new one per call).
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=str)


class _RedactingFilter(logging.Filter):
    """Also redacts the record itself, for any handler other than our own formatter."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, (str, dict)):
            record.msg = redact(record.msg)
        if record.args:
            record.args = tuple(redact(a) for a in record.args) if isinstance(record.args, tuple) else redact(record.args)
        for key in vars(record):  # the call's extra keys
            if key not in _STANDARD and is_secret_key(key):
                setattr(record, key, REDACTED)
        return True


# One formatter for the process: it carries the current request's correlation id.
FORMATTER = JsonFormatter()
_configured: list[logging.Logger] = []
_HANDLER: list[logging.StreamHandler[Any]] = []


def get_logger() -> logging.Logger:
    """The service's logger ("authgate"), configured on first use: JSON lines on stdout.

    It does not propagate to the root logger. On Lambda the Python runtime installs its own
    handler there, so every record would reach CloudWatch twice: once as our JSON line and
    once more in the runtime's text format. (Powertools' Logger prevents the same duplication
    by filtering its records out of the root's handlers.)"""
    if not _configured:
        logger = logging.getLogger(SERVICE)
        logger.setLevel(log_level())
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(FORMATTER)
        logger.addHandler(handler)
        _HANDLER.append(handler)
        logger.addFilter(_RedactingFilter())
        logger.propagate = False
        _configured.append(logger)
    return _configured[0]


def info_line(message: str, fields: dict[str, Any]) -> None:
    """`get_logger().info(message, extra=fields)` for the access line, without a LogRecord when the
    service's own handler is the only one (docs/decisions.md, measured shortcuts); any other
    handler (a test's capture) gets the record."""
    logger = get_logger()
    if logger.isEnabledFor(logging.INFO):
        _line(logger, message, fields, sys._getframe(1))


def always_line(message: str, text: str, fields: Callable[[], dict[str, Any]]) -> None:
    """An INFO line that no log level holds back (the audit trail's, authgate.audit), already encoded by its
    caller: `text` is the whole JSON line, `{"level":"INFO","message":...,"service":"authgate", **fields()}`
    redacted, without the location and timestamp of the other lines (docs/decisions.md, measured shortcuts).
    Any other handler (a test's capture, the local stack's) gets a record of `fields()`, whatever the logger's
    level, and its formatter redacts it as always."""
    logger = get_logger()
    if _sole_handler(logger):
        _write(text)
    else:
        _record(logger, message, fields(), sys._getframe(1))


def _line(logger: logging.Logger, message: str, fields: dict[str, Any], caller: FrameType) -> None:
    """The line of info_line, `caller` its location."""
    if not _sole_handler(logger):
        _record(logger, message, fields, caller)
        return
    now = time.time()
    supplied = {"message": message, "correlation_id": FORMATTER.correlation_id, **fields}
    _write(FORMATTER.line("INFO", f"{caller.f_code.co_name}:{caller.f_lineno}",
                          _timestamp(int(now), int((now % 1) * 1000)), supplied))


def _sole_handler(logger: logging.Logger) -> bool:
    """Whether the service's own handler and filter are the logger's only ones (as on Lambda)."""
    handlers = logger.handlers
    return len(handlers) == 1 and handlers[0] is _HANDLER[0] and len(logger.filters) == 1


def _record(logger: logging.Logger, message: str, fields: dict[str, Any], caller: FrameType) -> None:
    """Logger.handle, not Logger.info: the record reaches the handlers (each with its own level) without the
    logger's level check; `caller` (who called info_line or always_line) is its location."""
    logger.handle(logger.makeRecord(logger.name, logging.INFO, caller.f_code.co_filename, caller.f_lineno,
                                    message, (), None, caller.f_code.co_name, fields))


def _write(text: str) -> None:
    """One line on the service's handler's stream, flushed, under the handler's lock (as StreamHandler.emit)."""
    handler = _HANDLER[0]
    handler.acquire()
    try:
        stream = handler.stream
        stream.write(text + "\n")
        stream.flush()
    finally:
        handler.release()


def set_correlation_id(value: str | None) -> None:
    """The id every following record carries (the request's x-request-id)."""
    FORMATTER.correlation_id = value
