"""Correlation headers (contract 7.5): x-request-id, x-correlation-id, traceparent.

A sane incoming x-request-id is echoed, else the API Gateway request id is used; the same id
is the logger's correlation id and the problem body's traceId.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Visible ASCII without separators that break log parsing or header folding; bounded length.
_SANE_ID = re.compile(r"^[A-Za-z0-9._:@/+=-]{1,128}$")
# W3C Trace Context: version 00, 32-hex trace id not all zero, 16-hex parent id not all zero.
_TRACEPARENT = re.compile(r"^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$")


@dataclass(frozen=True)
class Correlation:
    request_id: str
    correlation_id: str | None
    traceparent: str | None

    def headers(self) -> dict[str, str]:
        out = {"x-request-id": self.request_id}
        if self.correlation_id:
            out["x-correlation-id"] = self.correlation_id
        if self.traceparent:
            out["traceparent"] = self.traceparent
        return out


def sane_id(value: str | None) -> str | None:
    return value if value is not None and _SANE_ID.match(value) else None


def valid_traceparent(value: str | None) -> str | None:
    return value if value is not None and _TRACEPARENT.match(value.strip()) else None


def correlate(incoming_request_id: str | None, correlation_id: str | None, traceparent: str | None,
              gateway_request_id: str) -> Correlation:
    """Choose the ids to echo; insane values are dropped, never reflected."""
    request_id = sane_id(incoming_request_id) or sane_id(gateway_request_id) or "unknown"
    return Correlation(request_id, sane_id(correlation_id), valid_traceparent(traceparent))
