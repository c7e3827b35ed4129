"""Structured JSON logging (Powertools Logger), built on first use.

Nothing secret is ever logged: callers log ids, codes and outcomes, never header values,
tokens, codes, secrets, passwords or verifiers. `redact` is the last line of defence for
anything that reaches a log record anyway.
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aws_lambda_powertools import Logger

# Values that look like credentials: JWTs, Basic/Bearer credentials.
_SECRET_PATTERNS = [
    re.compile(r"eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"),
    re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+"),
]
SECRET_KEYS = frozenset({
    "authorization", "password", "client_secret", "code", "code_verifier", "refresh_token",
    "access_token", "token", "id_token", "secret", "x-api-key", "cookie", "set-cookie",
    "assertion", "csrf", "request_blob",
})


def redact(value: Any) -> Any:
    """A copy of `value` with secret-looking members and substrings masked."""
    if isinstance(value, dict):
        return {k: ("[redacted]" if str(k).lower() in SECRET_KEYS else redact(v)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v) for v in value]
    if isinstance(value, str):
        for pattern in _SECRET_PATTERNS:
            value = pattern.sub("[redacted]", value)
        return value
    return value


class _RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, (str, dict)):
            record.msg = redact(record.msg)
        if record.args:
            record.args = tuple(redact(a) for a in record.args) if isinstance(record.args, tuple) else redact(record.args)
        for key in list(vars(record)):
            if key.lower() in SECRET_KEYS:
                setattr(record, key, "[redacted]")
        return True


@lru_cache(maxsize=1)
def get_logger() -> "Logger":
    from aws_lambda_powertools import Logger

    logger = Logger(service="authgate", log_uncaught_exceptions=False)
    logger.addFilter(_RedactingFilter())
    return logger
