"""Correlation headers (contract 7.5): x-request-id, x-correlation-id, traceparent.

A sane incoming x-request-id is echoed, else the API Gateway request id is used; the same id
is the logger's correlation id and the problem body's traceId.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# Visible ASCII without separators that break log parsing or header folding; bounded length.
_SANE_ID = re.compile(r"^[A-Za-z0-9._:@/+=-]{1,128}$")
# W3C Trace Context 3.2: lower-case hex; version ff is invalid; version 00 is exactly 55
# characters; a later version may append "-" fields, which we keep (3.2.4, forward
# compatibility). Trace id and parent id must not be all zeros.
_TRACEPARENT = re.compile(
    r"^(?!ff)(?P<version>[0-9a-f]{2})-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}(?P<rest>-.*)?$")
_MAX_TRACEPARENT = 512


class Correlation(NamedTuple):
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
    """The traceparent to echo, or None when it is not a valid W3C Trace Context header."""
    if value is None or len(value) > _MAX_TRACEPARENT:
        return None
    value = value.strip(" \t")
    m = _TRACEPARENT.match(value)
    if m is None or (m.group("version") == "00" and m.group("rest")):
        return None
    if m.group("rest") and not all(0x21 <= ord(ch) <= 0x7E for ch in m.group("rest")):
        return None
    return value


def correlate(incoming_request_id: str | None, correlation_id: str | None, traceparent: str | None,
              gateway_request_id: str) -> Correlation:
    """Choose the ids to echo; insane values are dropped, never reflected."""
    request_id = sane_id(incoming_request_id) or sane_id(gateway_request_id) or "unknown"
    return Correlation(request_id, sane_id(correlation_id), valid_traceparent(traceparent))
