"""The MCP server of docs/mcp.md as a Lambda function: examples/mcp/mcp_server.py's `lambda_handler`
(Mangum) invoked in this process with API Gateway REST events, one warm instance for every
invocation, against the registered resource and the tokens of a real `authgate serve`.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.e2e.mcp_stack import McpStack, token_by_code_flow

pytestmark = [pytest.mark.e2e]

ACCEPT = "application/json, text/event-stream"


def event(method: str, path: str, headers: dict[str, str], body: Any = None) -> dict[str, Any]:
    """An API Gateway REST (v1) proxy event, as events/ holds them."""
    headers = {"Host": "127.0.0.1", **headers}
    return {"resource": path, "path": path, "httpMethod": method, "headers": headers,
            "multiValueHeaders": {k: [v] for k, v in headers.items()}, "queryStringParameters": None,
            "multiValueQueryStringParameters": None, "pathParameters": None, "stageVariables": None,
            "requestContext": {"resourcePath": path, "httpMethod": method, "path": path, "stage": "prod",
                               "domainName": "127.0.0.1", "requestId": "mcp-lambda", "identity": {"sourceIp": "127.0.0.1"}},
            "body": None if body is None else json.dumps(body), "isBase64Encoded": False}


def rpc(method: str, params: dict[str, Any] | None = None, id_: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, **({"params": params} if params is not None else {})}


def test_the_lambda_handler_guards_the_mcp_server(mcp: McpStack, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.examples import module

    lambda_handler = module("mcp_server").lambda_handler

    server = mcp.server
    monkeypatch.setenv("MCP_ISSUER", mcp.issuer)
    monkeypatch.setenv("MCP_RESOURCE", server.resource)
    monkeypatch.setenv("MCP_INTROSPECTION_CLIENT_ID", server.credentials["introspection_client_id"])
    monkeypatch.setenv("MCP_INTROSPECTION_CLIENT_SECRET", server.credentials["introspection_client_secret"])
    path = urlsplit(server.resource).path
    host = {"Host": urlsplit(server.resource).netloc}

    metadata = lambda_handler(event("GET", "/.well-known/oauth-protected-resource/mcp", host), None)
    assert metadata["statusCode"] == 200
    assert json.loads(metadata["body"])["authorization_servers"] == [mcp.issuer]

    anonymous = lambda_handler(event("POST", path, {**host, "Accept": ACCEPT, "Content-Type": "application/json"},
                                     rpc("tools/list")), None)
    assert anonymous["statusCode"] == 401
    assert anonymous["headers"]["www-authenticate"] == (
        f'Bearer resource_metadata="{server.metadata_url}", scope="mcp:read"')

    token = token_by_code_flow(mcp, server.resource, "/agents/lambda.json")["access_token"]
    authorized = {**host, "Accept": ACCEPT, "Content-Type": "application/json", "Authorization": f"Bearer {token}",
                  "MCP-Protocol-Version": "2025-11-25"}
    listed = lambda_handler(event("POST", path, authorized, rpc("tools/call", {"name": "list_notes", "arguments": {}})),
                            None)
    assert listed["statusCode"] == 200, listed
    assert json.loads(listed["body"])["result"]["isError"] is False
    assert "first note" in listed["body"]

    # A second warm invocation with a tool the token's scope does not cover: the scope challenge.
    added = lambda_handler(event("POST", path, authorized, rpc("tools/call", {"name": "add_note",
                                                                               "arguments": {"text": "x"}}, 2)), None)
    assert added["statusCode"] == 403
    assert added["headers"]["www-authenticate"] == (
        f'Bearer error="insufficient_scope", resource_metadata="{server.metadata_url}", '
        'error_description="This tool needs mcp:write.", scope="mcp:read mcp:write"')
    assert json.loads(added["body"]) == {"error": "insufficient_scope", "error_description": "This tool needs mcp:write."}
