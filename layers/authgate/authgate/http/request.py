"""A request, built once from an API Gateway REST proxy event (payload format 1.0)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from authgate.errors import ApiError
from authgate.http.context import RequestContext
from authgate.http.headers import Headers


@dataclass
class Request:
    method: str
    path: str
    resource: str
    path_params: dict[str, str]
    headers: Headers
    query: dict[str, list[str]]
    body: bytes
    source_ip: str
    gateway_request_id: str
    stage: str
    domain: str
    # Chosen by http.correlation: the id echoed as x-request-id and used as the log key.
    request_id: str = ""
    # What handling the request has learned, for the renderer and the App (http.context).
    context: RequestContext = field(default_factory=RequestContext)

    @classmethod
    def from_event(cls, event: Mapping[str, Any]) -> Request:
        if not isinstance(event, Mapping) or not isinstance(event.get("httpMethod"), str):
            raise ApiError("invalid_request", "The event is not an API Gateway REST proxy event.")
        ctx = event.get("requestContext") or {}
        identity = ctx.get("identity") or {}
        raw_body = event.get("body") or ""
        if event.get("isBase64Encoded"):
            try:
                body = base64.b64decode(raw_body, validate=True)
            except (binascii.Error, ValueError):
                raise ApiError("invalid_request", "The request body is not valid base64.") from None
        else:
            body = raw_body.encode("utf-8", "surrogateescape") if isinstance(raw_body, str) else bytes(raw_body)
        multi_q = event.get("multiValueQueryStringParameters")
        single_q = event.get("queryStringParameters")
        if multi_q:
            query = {k: list(v or []) for k, v in multi_q.items()}
        else:
            query = {k: [v] for k, v in (single_q or {}).items()}
        return cls(
            method=event["httpMethod"].upper(),
            path=event.get("path") or "/",
            resource=event.get("resource") or event.get("path") or "/",
            path_params=dict(event.get("pathParameters") or {}),
            headers=Headers.from_event(event.get("headers"), event.get("multiValueHeaders")),
            query=query,
            body=body,
            source_ip=identity.get("sourceIp") or "",
            gateway_request_id=ctx.get("requestId") or "",
            stage=ctx.get("stage") or "",
            domain=ctx.get("domainName") or "",
        )

    @classmethod
    def unparsed(cls, event: Any, request_id: str) -> Request:
        """A stand-in for an event that is not a REST proxy event, so its error renders like any other."""
        path = event.get("path") if isinstance(event, Mapping) else None
        return cls(method="", path=path if isinstance(path, str) else "/", resource="", path_params={},
                   headers=Headers(), query={}, body=b"", source_ip="", gateway_request_id=request_id,
                   stage="", domain="", request_id=request_id)

    def header(self, name: str) -> str | None:
        return self.headers.get(name)

    @property
    def content_type(self) -> str:
        """The media type of the body, lower-cased, without parameters."""
        raw = self.headers.get("content-type") or ""
        return raw.split(";", 1)[0].strip().lower()

    def form(self) -> list[tuple[str, str]]:
        """The body as application/x-www-form-urlencoded pairs, order and repeats kept."""
        try:
            text = self.body.decode("utf-8")
        except UnicodeDecodeError:
            raise ApiError("invalid_request", "The form body is not valid UTF-8.") from None
        try:
            return parse_qsl(text, keep_blank_values=True, strict_parsing=False, errors="strict")
        except (ValueError, UnicodeDecodeError):
            raise ApiError("invalid_request", "The form body is not valid application/x-www-form-urlencoded.") from None
