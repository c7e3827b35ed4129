"""Hand-built API Gateway REST proxy events and requests for error tests."""

from __future__ import annotations

from typing import Any

from authgate.http.request import Request


def event(method: str = "GET", resource: str = "/things", path: str | None = None, body: str = "",
          headers: dict[str, str] | None = None, request_id: str = "gw-req-1") -> dict[str, Any]:
    headers = headers or {}
    return {
        "resource": resource, "path": path or resource, "httpMethod": method,
        "headers": headers, "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": None, "multiValueQueryStringParameters": None,
        "pathParameters": None, "body": body, "isBase64Encoded": False,
        "requestContext": {"requestId": request_id, "stage": "test", "domainName": "example.test",
                           "identity": {"sourceIp": "127.0.0.1"}},
    }


def request(headers: dict[str, str] | None = None, *, path: str = "/charges", state: dict[str, Any] | None = None,
            body: str = "", method: str = "POST") -> Request:
    req = Request.from_event(event(method, path, body=body, headers=headers))
    req.request_id = "req-1"
    req.state.update(state or {})
    return req
