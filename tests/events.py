"""Hand-built API Gateway REST proxy (payload v1) events and requests for the http and errors tests."""

from __future__ import annotations

from typing import Any

from authgate.http.context import RequestContext
from authgate.http.request import Request


def event(method: str = "GET", resource: str = "/things", path: str | None = None, *, body: str | None = "",
          headers: dict[str, str] | None = None, request_id: str = "gw-req-1", stage: str = "test",
          domain: str = "example.test") -> dict[str, Any]:
    """The event API Gateway sends for `method` on `path` matched to `resource` (one value per header)."""
    headers = headers or {}
    return {
        "resource": resource, "path": path or resource, "httpMethod": method,
        "headers": headers, "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": None, "multiValueQueryStringParameters": None,
        "pathParameters": None, "stageVariables": None, "body": body, "isBase64Encoded": False,
        "requestContext": {"requestId": request_id, "extendedRequestId": "ext-1", "stage": stage,
                           "domainName": domain, "resourcePath": resource, "httpMethod": method,
                           "identity": {"sourceIp": "127.0.0.1"}},
    }


def request(headers: dict[str, str] | None = None, *, path: str = "/charges", context: RequestContext | None = None,
            body: str = "", method: str = "POST") -> Request:
    req = Request.from_event(event(method, path, body=body, headers=headers))
    req.request_id = "req-1"
    if context is not None:
        req.context = context
    return req
