"""Read any error response of the contract into one value (contract 7.4 and 7.5).

`read_error(status, headers, body)` recognises problem details, JSON:API, the two legacy
shapes, OAuth JSON, a bare WWW-Authenticate challenge and HTML pages, and lists the contract
defects it sees. Status, Content-Type, body and request-id headers are read together (7.4.1).
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Literal

Shape = Literal["problem", "jsonapi", "legacy-a", "legacy-b", "oauth", "www-authenticate", "html", "unknown"]

# Contract 7.5, in the order they are consulted; last, API Gateway's own request id, the only one
# its gateway responses can carry (a header there cannot come from a context variable).
REQUEST_ID_HEADERS = ("x-request-id", "x-correlation-id", "cf-ray", "traceparent", "x-amz-apigw-id")
_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$")
_AUTH_PARAM = re.compile(r'([A-Za-z0-9_-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,]+)')
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)

# Defect names (stable: tests and dashboards match on them).
SUCCESS_FALSE_WITH_2XX = "success_false_with_2xx"
STATUS_MISMATCH = "body_status_differs_from_http_status"
HTML_ON_API_ROUTE = "html_on_api_route"
PROBLEM_WITHOUT_MEDIA_TYPE = "problem_body_without_problem_content_type"
MISSING_CODE = "missing_code"
TRACE_ID_MISMATCH = "trace_id_differs_from_request_id"
NO_REQUEST_ID = "no_request_id_header"
NO_CHALLENGE = "401_without_www_authenticate"
NO_ALLOW = "405_without_allow"
NO_RETRY_AFTER = "retry_after_missing"
BAD_RETRY_AFTER = "retry_after_unparseable"
UNPARSEABLE = "unrecognised_error_body"


@dataclass(frozen=True)
class ErrorReading:
    status: int
    code: str | None
    message: str | None
    shape: Shape
    request_id: str | None
    retry_after: int | None
    defects: tuple[str, ...] = ()
    content_type: str = ""
    body: Any = field(default=None, repr=False)

    @property
    def is_failure(self) -> bool:
        """A failure by status, or a 2xx that says success:false (contract 7.4.2: treat as 4xx)."""
        return self.status >= 400 or SUCCESS_FALSE_WITH_2XX in self.defects


class _Headers:
    def __init__(self, headers: Mapping[str, Any] | Iterable[tuple[str, Any]] | None) -> None:
        items = headers.items() if isinstance(headers, Mapping) else (headers or [])
        self._values: dict[str, str] = {}
        for name, value in items:
            if isinstance(value, (list, tuple)):
                value = ", ".join(str(v) for v in value)
            key = str(name).lower()
            self._values[key] = f"{self._values[key]}, {value}" if key in self._values else str(value)

    def get(self, name: str) -> str | None:
        return self._values.get(name)


def request_id_of(headers: _Headers) -> str | None:
    for name in REQUEST_ID_HEADERS:
        value = headers.get(name)
        if not value:
            continue
        if name == "traceparent":
            m = _TRACEPARENT.match(value.strip())
            if not m:
                continue
            return m.group(1)
        return value.strip()
    return None


def parse_retry_after(value: str | None, now: float | None = None) -> int | None:
    """RFC 9110 10.2.3: delay-seconds or an HTTP-date, as whole seconds from `now` (never negative)."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return int(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0, math.ceil(when.timestamp() - (time.time() if now is None else now)))


def parse_challenge(value: str) -> tuple[str, dict[str, str]]:
    """The scheme and auth-params of the first challenge in a WWW-Authenticate value."""
    scheme, _, rest = value.strip().partition(" ")
    params: dict[str, str] = {}
    for name, raw in _AUTH_PARAM.findall(rest):
        if raw.startswith('"'):
            raw = re.sub(r"\\(.)", r"\1", raw[1:-1])
        params.setdefault(name.lower(), raw)
    return scheme, params


def _decode(body: Any) -> tuple[Any, str]:
    if isinstance(body, (bytes, bytearray)):
        text = bytes(body).decode("utf-8", "replace")
    elif isinstance(body, str):
        text = body
    else:
        return body, json.dumps(body) if body is not None else ""
    try:
        return json.loads(text), text
    except ValueError:
        return None, text


def _shape_of(media: str, data: Any, text: str, challenge: str | None) -> Shape:
    if isinstance(data, dict):
        errors = data.get("errors")
        if media == "application/problem+json" or ("type" in data and "title" in data) or (
                "status" in data and "detail" in data):
            return "problem"
        if media == "application/vnd.api+json" or (
                isinstance(errors, list) and errors and isinstance(errors[0], dict) and "status" in errors[0]
                and "success" not in data):
            return "jsonapi"
        if data.get("success") is False or ("success" in data and isinstance(errors, list)):
            return "legacy-b"
        if isinstance(data.get("error"), str) and ("message" in data or "status" in data):
            return "legacy-a"
        if isinstance(data.get("error"), str):
            return "oauth"
    if media == "text/html" or text.lstrip()[:15].lower().startswith(("<!doctype html", "<html")):
        return "html"
    if challenge:
        return "www-authenticate"
    return "unknown"


def _read_fields(shape: Shape, data: Any, text: str, challenge: dict[str, str]) -> tuple[str | None, str | None, list[Any], list[Any]]:
    """(code, message, body statuses, body trace ids) of a recognised shape."""
    if shape == "problem":
        code = data.get("code") if isinstance(data.get("code"), str) else None
        trace = [data["traceId"]] if "traceId" in data else []
        return code, data.get("detail") or data.get("title"), ([data["status"]] if "status" in data else []), trace
    if shape == "jsonapi":
        errors = [e for e in data.get("errors") or [] if isinstance(e, dict)]
        codes = [e.get("code") for e in errors if isinstance(e.get("code"), str)]
        first = errors[0] if errors else {}
        traces = [(e.get("meta") or {}).get("traceId") for e in errors if "traceId" in (e.get("meta") or {})]
        statuses = [e["status"] for e in errors if "status" in e]
        return (codes[0] if len(codes) == len(errors) and codes else None,
                first.get("detail") or first.get("title"), statuses, traces)
    if shape == "legacy-a":
        code = data.get("code") if isinstance(data.get("code"), str) else data.get("error")
        return code, data.get("message"), ([data["status"]] if "status" in data else []), []
    if shape == "legacy-b":
        errors = [e for e in data.get("errors") or [] if isinstance(e, dict)]
        code = data.get("code") or next((e.get("code") for e in errors if e.get("code")), None)
        message = next((e.get("message") for e in errors if e.get("message")), None)
        return code, message, ([data["status"]] if "status" in data else []), []
    if shape == "oauth":
        return data.get("error"), data.get("error_description") or data.get("error"), [], []
    if shape == "www-authenticate":
        return challenge.get("error"), challenge.get("error_description"), [], []
    if shape == "html":
        m = _TITLE.search(text)
        return None, (" ".join(m.group(1).split()) if m else None), [], []
    return None, None, [], []


def read_error(status: int, headers: Mapping[str, Any] | Iterable[tuple[str, Any]] | None, body: Any, *,
               api: bool = True, now: float | None = None) -> ErrorReading:
    """One value for any error response; `api=False` for browser routes, where HTML is expected."""
    h = _Headers(headers)
    content_type = h.get("content-type") or ""
    media = content_type.split(";", 1)[0].strip().lower()
    data, text = _decode(body)
    challenge_value = h.get("www-authenticate")
    challenge = parse_challenge(challenge_value)[1] if challenge_value else {}
    shape = _shape_of(media, data, text, challenge_value)
    code, message, body_statuses, traces = _read_fields(shape, data, text, challenge)
    request_id = request_id_of(h)
    retry_raw = h.get("retry-after")
    retry_after = parse_retry_after(retry_raw, now)

    defects: list[str] = []
    failing = status >= 400
    if isinstance(data, dict) and data.get("success") is False and 200 <= status < 300:
        defects.append(SUCCESS_FALSE_WITH_2XX)
        failing = True
    if failing:
        if any(str(s) != str(status) for s in body_statuses):
            defects.append(STATUS_MISMATCH)
        if shape == "html" and api:
            defects.append(HTML_ON_API_ROUTE)
        if shape == "unknown":
            defects.append(UNPARSEABLE)
        if shape == "problem" and media != "application/problem+json":
            defects.append(PROBLEM_WITHOUT_MEDIA_TYPE)
        if shape in ("problem", "jsonapi", "legacy-a", "legacy-b", "oauth") and not code:
            defects.append(MISSING_CODE)
        if h.get("x-request-id") is None and request_id is None:
            defects.append(NO_REQUEST_ID)
        if status == 401 and not challenge_value:
            defects.append(NO_CHALLENGE)
        if status == 405 and not h.get("allow"):
            defects.append(NO_ALLOW)
        if status in (429, 503) and retry_raw is None:
            defects.append(NO_RETRY_AFTER)
        if traces and any(t != (h.get("x-request-id") or h.get("x-amz-apigw-id")) for t in traces):
            defects.append(TRACE_ID_MISMATCH)
    if retry_raw is not None and retry_after is None:
        defects.append(BAD_RETRY_AFTER)
    return ErrorReading(status=status, code=code, message=message, shape=shape, request_id=request_id,
                        retry_after=retry_after, defects=tuple(defects), content_type=content_type,
                        body=data if data is not None else text)
