"""Builds API Gateway REST proxy events (payload format 1.0) from raw HTTP requests.

The shape follows what API Gateway sends a Lambda proxy integration: single- and multi-value
headers and query parameters (the single-value maps keep the last value, as API Gateway does),
`null` for absent maps and bodies, base64 bodies for non-text media types, and a
`requestContext` carrying the request id, source IP, stage and resource.
"""

from __future__ import annotations

import base64
import secrets
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

ACCOUNT_ID = "123456789012"
API_ID = "local"

# Media types whose bodies travel as text; anything else is base64 with isBase64Encoded.
_TEXT_TYPES = ("application/json", "application/x-www-form-urlencoded", "application/xml",
               "application/javascript", "application/graphql")


def is_text(content_type: str | None) -> bool:
    """True for media types API Gateway passes as text (no binaryMediaTypes configured for them)."""
    if not content_type:
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return media.startswith("text/") or media in _TEXT_TYPES or media.endswith(("+json", "+xml"))


def multi_map(pairs: Iterable[tuple[str, str]]) -> tuple[dict[str, str] | None, dict[str, list[str]] | None]:
    """(single, multi) maps as API Gateway builds them: single keeps the last value; None when empty."""
    multi: dict[str, list[str]] = {}
    for name, value in pairs:
        multi.setdefault(name, []).append(value)
    if not multi:
        return None, None
    return {name: values[-1] for name, values in multi.items()}, multi


def parse_query(raw: str) -> list[tuple[str, str]]:
    """Query pairs from the raw query string, repeats and blank values kept, in order."""
    return parse_qsl(raw, keep_blank_values=True) if raw else []


def extended_request_id() -> str:
    """An id shaped like API Gateway's extendedRequestId (12 base64 characters ending '=')."""
    return base64.b64encode(secrets.token_bytes(9)).decode("ascii")[:11] + "="


@dataclass
class HttpRequest:
    """What arrived on the wire, before it becomes an event."""

    method: str
    path: str
    raw_query: str = ""
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    source_ip: str = "127.0.0.1"
    # Declared larger than API Gateway accepts; the body was not read.
    too_large: bool = False

    def header(self, name: str) -> str | None:
        found = [v for k, v in self.headers if k.lower() == name.lower()]
        return found[-1] if found else None


def build_event(request: HttpRequest, *, resource: str, path_params: dict[str, str] | None,
                stage: str = "local", api_key: str | None = None,
                request_id: str | None = None, extended_id: str | None = None,
                now: float | None = None) -> dict[str, Any]:
    """The REST proxy event API Gateway would send for `request` matched to `resource`."""
    now = time.time() if now is None else now
    headers, multi_headers = multi_map(request.headers)
    query, multi_query = multi_map(parse_query(request.raw_query))
    if request.body:
        if is_text(request.header("content-type")):
            try:
                body: str | None = request.body.decode("utf-8")
                is_b64 = False
            except UnicodeDecodeError:
                body, is_b64 = base64.b64encode(request.body).decode("ascii"), True
        else:
            body, is_b64 = base64.b64encode(request.body).decode("ascii"), True
    else:
        body, is_b64 = None, False
    # domainName is the host without the port, as API Gateway reports it.
    host = urlsplit("//" + (request.header("host") or "127.0.0.1")).hostname or "127.0.0.1"
    return {
        "resource": resource,
        "path": request.path,
        "httpMethod": request.method.upper(),
        "headers": headers,
        "multiValueHeaders": multi_headers,
        "queryStringParameters": query,
        "multiValueQueryStringParameters": multi_query,
        "pathParameters": path_params or None,
        "stageVariables": None,
        "requestContext": {
            "accountId": ACCOUNT_ID,
            "apiId": API_ID,
            "resourceId": resource,
            "resourcePath": resource,
            "httpMethod": request.method.upper(),
            "requestId": request_id or str(uuid.uuid4()),
            "extendedRequestId": extended_id or extended_request_id(),
            "requestTime": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "requestTimeEpoch": int(now * 1000),
            "path": request.path,
            "protocol": "HTTP/1.1",
            "stage": stage,
            "domainName": host,
            "domainPrefix": host.split(".", 1)[0],
            "identity": {
                "sourceIp": request.source_ip,
                "userAgent": request.header("user-agent"),
                "apiKey": api_key,
                "apiKeyId": f"key-{api_key}" if api_key else None,
                "accountId": None, "caller": None, "user": None, "userArn": None,
                "cognitoIdentityId": None, "cognitoIdentityPoolId": None,
                "cognitoAuthenticationType": None, "cognitoAuthenticationProvider": None,
            },
        },
        "body": body,
        "isBase64Encoded": is_b64,
    }
