"""The MCP end-to-end stack: `authgate serve --allow-loopback-outbound` trusting a CA made for
the run (SSL_CERT_FILE), an HTTPS host on 127.0.0.1 serving client ID metadata documents
(tests/document_server.py), and the team's MCP server (examples/mcp/mcp_server.py, run from the
example's own environment) registered at authgate as a resource with `authgate resources create --json`.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import requests

from tests.document_server import DocumentServer, document_server
from tests.e2e.conftest import REPO_ROOT, LocalStack, authgate_command, free_port, running_stack
from tests.e2e.flows import pkce_pair
from tests.e2e.mcp_clients import CLIENT_NAME, REDIRECT_URI, Consent
from tests.examples import program

MCP_SCOPES = "mcp:read mcp:write"


@dataclass
class McpServer:
    resource: str  # http://127.0.0.1:PORT/mcp: the MCP endpoint and the resource identifier
    metadata_url: str
    credentials: dict[str, Any]  # what `authgate resources create --json` printed
    process: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text("utf-8", errors="replace")[-4000:]


@dataclass
class McpStack:
    stack: LocalStack
    documents: DocumentServer
    server: McpServer
    other: McpServer  # a second registered MCP server (tokens for one are refused by the other)

    @property
    def issuer(self) -> str:
        return self.stack.base_url


def register_resource(stack: LocalStack, resource: str, scopes: str = MCP_SCOPES) -> dict[str, Any]:
    """`authgate resources create RESOURCE --scopes … --json` on the running stack."""
    run = subprocess.run([*authgate_command(), "resources", "create", resource, "--scopes", scopes, "--json",
                          "--url", stack.base_url], env=stack.env(), cwd=REPO_ROOT, capture_output=True, text=True,
                         timeout=60, check=False)
    assert run.returncode == 0, f"authgate resources create failed ({run.returncode}): {run.stderr or run.stdout}"
    created: dict[str, Any] = json.loads(run.stdout)
    assert set(created) == {"resource", "scopes", "introspection_client_id", "introspection_client_secret"}, created
    return created


@contextlib.contextmanager
def mcp_server(stack: LocalStack, tmp: Path, name: str) -> Iterator[McpServer]:
    """Register a resource for a fresh port, then run the example's `mcp-notes-server` there."""
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    credentials = register_resource(stack, resource)
    log_path = tmp / f"{name}.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHONPATH", "VIRTUAL_ENV"))}
    env.update({"MCP_ISSUER": stack.base_url, "MCP_RESOURCE": resource, "PYTHONUNBUFFERED": "1",
                "MCP_INTROSPECTION_CLIENT_ID": credentials["introspection_client_id"],
                "MCP_INTROSPECTION_CLIENT_SECRET": credentials["introspection_client_secret"]})
    with open(log_path, "wb") as log:
        process = subprocess.Popen([str(program("mcp-notes-server"))], cwd=tmp, env=env, stdout=log,
                                   stderr=subprocess.STDOUT)
    server = McpServer(resource, f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp", credentials,
                       process, log_path)
    try:
        _wait_until_it_answers(server)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _wait_until_it_answers(server: McpServer, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if server.process.poll() is not None:
            raise RuntimeError(f"the MCP server exited with {server.process.returncode}:\n{server.log()}")
        try:
            with urllib.request.urlopen(server.metadata_url, timeout=2):
                return
        except (urllib.error.URLError, OSError):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the MCP server did not answer in {timeout:.0f}s:\n{server.log()}") from None
            time.sleep(0.1)


@contextlib.contextmanager
def mcp_stack(tmp: Path) -> Iterator[McpStack]:
    """The whole stack, stopped at the end."""
    with document_server(tmp) as documents, \
            running_stack(tmp / "serve", "--allow-loopback-outbound",
                          # Every request of the run comes from 127.0.0.1: one address's budget of new
                          # documents (10 a minute) would be the whole suite's.
                          env_extra={"SSL_CERT_FILE": str(documents.ca),
                                     "AUTHGATE_CLIENT_METADATA_SOURCE_LIMIT": "1000"}) as stack, \
            mcp_server(stack, tmp, "mcp-notes") as server, mcp_server(stack, tmp, "mcp-other") as other:
        yield McpStack(stack, documents, server, other)


def token_by_code_flow(mcp: McpStack, resource: str, path: str, scope: str = "mcp:read") -> dict[str, Any]:
    """A token for `resource` by the code flow of a metadata-document client (served at `path`), over plain HTTP."""
    url = mcp.documents.document(path, client_name=CLIENT_NAME, redirect_uris=[REDIRECT_URI])
    verifier, challenge = pkce_pair()
    params = {"response_type": "code", "client_id": url, "redirect_uri": REDIRECT_URI, "scope": scope,
              "state": "s", "code_challenge": challenge, "code_challenge_method": "S256", "resource": resource}
    answer = Consent(mcp.issuer).sign_in(f"{mcp.issuer}/oauth/authorize?{urlencode(params)}")
    token = requests.post(f"{mcp.issuer}/oauth/token", timeout=30, data={
        "grant_type": "authorization_code", "code": answer["code"], "redirect_uri": REDIRECT_URI,
        "code_verifier": verifier, "client_id": url, "resource": resource})
    assert token.status_code == 200, token.text
    return dict(token.json())
