"""A response, turned into the API Gateway REST proxy result."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# The one header set of a response no cache may keep: one that carries a credential or a one-time
# value (RFC 6749 5.1, RFC 9126 2.2), account data (RFC 9111 5.2.2.5), a page of one request;
# Pragma for HTTP/1.0 caches (RFC 9111 5.4).
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}

# One encoder for every JSON body (json.dumps with options builds a new one per call).
_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


@dataclass
class Response:
    status: int
    body: str | bytes = ""
    headers: dict[str, str] = field(default_factory=dict)
    # Headers that may repeat (Set-Cookie); most responses have none.
    multi_headers: dict[str, list[str]] = field(default_factory=dict)
    # The application code of an error response (for logs and metrics); empty on success.
    error_code: str = ""

    @classmethod
    def json(cls, status: int, payload: Any, content_type: str = "application/json",
             headers: Mapping[str, str] | None = None) -> Response:
        body = _JSON.encode(payload)
        return cls(status, body, {"Content-Type": content_type, **(headers or {})})

    def set_header(self, name: str, value: str) -> None:
        for existing in list(self.headers):
            if existing.lower() == name.lower():
                del self.headers[existing]
        self.headers[name] = value

    def get_header(self, name: str) -> str | None:
        for existing, value in self.headers.items():
            if existing.lower() == name.lower():
                return value
        return None

    def to_proxy(self) -> dict[str, Any]:
        """The Lambda proxy integration result (multiValueHeaders carries every header)."""
        multi: dict[str, list[str]] = {k: [v] for k, v in self.headers.items()}
        for name, values in self.multi_headers.items():
            multi.setdefault(name, []).extend(values)
        if isinstance(self.body, bytes):
            try:
                body, is_b64 = self.body.decode("utf-8"), False
            except UnicodeDecodeError:
                body, is_b64 = base64.b64encode(self.body).decode("ascii"), True
        else:
            body, is_b64 = self.body, False
        return {"statusCode": self.status, "multiValueHeaders": multi, "body": body, "isBase64Encoded": is_b64}

