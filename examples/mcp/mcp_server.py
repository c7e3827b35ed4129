"""A team's own MCP server protected by authgate, as docs/mcp.md shows it: the official `mcp`
package's server (streamable HTTP, stateless, JSON responses) behind a bearer guard of ~100 lines.

The guard is the team's code, not authgate's (PyJWT stands for whatever JOSE library a team uses):
- RFC 9728: it publishes its protected resource metadata at
  `/.well-known/oauth-protected-resource/mcp`, naming authgate as its authorization server;
- RFC 6750 3.1 / RFC 9728 5.1: a request without a token is 401 with
  `WWW-Authenticate: Bearer resource_metadata="…", scope="mcp:read"`;
- RFC 9068: it verifies authgate's JWT itself (`typ` at+jwt, signature by the issuer's JWKS, `iss`,
  `aud` = this resource's URI, `exp`; no DPoP binding), so a token issued for another resource is
  401 `invalid_token`;
- RFC 7662: it asks authgate whether the token is still active with the introspection
  credentials `authgate resources create --json` printed, so a revoked token is refused at once;
- MCP scope challenges: a tool the token's scopes do not cover is 403 `insufficient_scope` with
  `scope="<the token's scopes and what the tool needs>"`, and the client steps up.

Run: `mcp-notes-server` (this example's console script; `make mcp-example` installs it into
examples/mcp/.venv) with MCP_ISSUER, MCP_RESOURCE (http://127.0.0.1:PORT/mcp),
MCP_INTROSPECTION_CLIENT_ID and MCP_INTROSPECTION_CLIENT_SECRET in the environment.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import urllib.parse
import urllib.request
from typing import Any
from urllib.parse import urlsplit

import anyio
import jwt
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

# The scope each tool needs; anything else the MCP endpoint serves needs a valid token only.
TOOL_SCOPES = {"list_notes": "mcp:read", "add_note": "mcp:write"}
SCOPES = ["mcp:read", "mcp:write"]

Scope = dict[str, Any]


def notes_server() -> MCPServer:
    """The MCP server proper: two tools over an in-memory list."""
    server = MCPServer("notes")
    notes: list[str] = ["first note"]

    @server.tool()
    def list_notes() -> list[str]:
        """Every note (needs mcp:read)."""
        return list(notes)

    @server.tool()
    def add_note(text: str) -> str:
        """Add a note (needs mcp:write)."""
        notes.append(text)
        return f"added note {len(notes)}"

    return server


@functools.cache
def jwks_client(issuer: str) -> jwt.PyJWKClient:
    """authgate's signing keys (RFC 7517), fetched once per process and again for an unknown `kid`."""
    return jwt.PyJWKClient(f"{issuer}/.well-known/jwks.json", cache_keys=True)


class BearerGuard:
    """ASGI middleware: RFC 9728 metadata, then a JWT (JWKS) + introspection check, then per-tool scopes."""

    def __init__(self, app: Any, *, issuer: str, resource: str, client_id: str, client_secret: str) -> None:
        self.app = app
        self.issuer = issuer.rstrip("/")
        self.resource = resource
        parts = urlsplit(resource)
        self.path = parts.path
        self.metadata_path = f"/.well-known/oauth-protected-resource{parts.path}"
        self.metadata_url = f"{parts.scheme}://{parts.netloc}{self.metadata_path}"
        self.jwks = jwks_client(self.issuer)
        self._basic = base64.b64encode(
            f"{urllib.parse.quote(client_id, safe='')}:{urllib.parse.quote(client_secret, safe='')}".encode()).decode()

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if scope["path"] == self.metadata_path:
            return await _json(send, 200, self.metadata(), {"cache-control": "public, max-age=300"})
        if scope["path"] != self.path:
            return await _json(send, 404, {"error": "not_found"})
        token = _bearer(scope)
        if token is None:
            return await self.challenge(send, 401, None, "mcp:read")
        claims = await anyio.to_thread.run_sync(self.verify, token)
        if claims is None:
            return await self.challenge(send, 401, "invalid_token", None, "The access token is not valid here.")
        body = await _read_body(receive)
        needed = TOOL_SCOPES.get(_called_tool(body) or "")
        granted = str(claims.get("scope", "")).split()
        if needed and needed not in granted:
            # MCP scope challenges: name what the token has plus what the tool needs, so the new
            # token keeps working for the tools the old one served.
            wanted = " ".join(dict.fromkeys([*granted, needed]))
            return await self.challenge(send, 403, "insufficient_scope", wanted, f"This tool needs {needed}.")
        return await self.app(scope, _replay(body), send)

    def metadata(self) -> dict[str, Any]:
        """RFC 9728 2: this resource, its authorization server and its scopes."""
        return {"resource": self.resource, "authorization_servers": [self.issuer], "scopes_supported": SCOPES,
                "bearer_methods_supported": ["header"], "resource_name": "Notes (an MCP server)"}

    def verify(self, token: str) -> dict[str, Any] | None:
        """The token's claims when authgate signed it for this resource and it is still active (RFC 9068 4, RFC 7662)."""
        try:
            if jwt.get_unverified_header(token).get("typ", "").lower() not in ("at+jwt", "application/at+jwt"):
                return None  # RFC 9068 4: only access tokens, never an ID token or a client assertion
            key = self.jwks.get_signing_key_from_jwt(token)
            claims: dict[str, Any] = jwt.decode(token, key, algorithms=["RS256", "ES256"], audience=self.resource,
                                                issuer=self.issuer, options={"require": ["exp", "iss", "aud"]})
        except jwt.PyJWTError:
            return None
        if "cnf" in claims:
            return None  # DPoP-bound (RFC 9449 6): this server checks no proof, so it takes bearer tokens only
        return claims if self.active(token) else None

    def active(self, token: str) -> bool:
        """RFC 7662 2.1: ask authgate with this resource's own credentials (sees revocation at once)."""
        request = urllib.request.Request(
            f"{self.issuer}/oauth/introspect", data=urllib.parse.urlencode({"token": token}).encode(),
            headers={"Authorization": f"Basic {self._basic}", "Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response).get("active") is True

    async def challenge(self, send: Any, status: int, error: str | None, scope: str | None,
                        description: str | None = None) -> None:
        """RFC 6750 3 / RFC 9728 5.1: Bearer challenge with resource_metadata (and scope when one is needed)."""
        params = [f'resource_metadata="{self.metadata_url}"']
        if error:
            params.insert(0, f'error="{error}"')
        if description:
            params.append(f'error_description="{description}"')
        if scope:
            params.append(f'scope="{scope}"')
        # RFC 6750 3.1: a request with no token gets no error code.
        body = {"error": error, "error_description": description} if error else {"error_description": "A bearer token is required."}
        await _json(send, status, body, {"www-authenticate": "Bearer " + ", ".join(params)})


def _bearer(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == b"authorization":
            kind, _, token = value.decode("latin-1").partition(" ")
            if kind.lower() != "bearer":
                return None
            return token.strip() or None
    return None


async def _read_body(receive: Any) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


def _replay(body: bytes) -> Any:
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await anyio.sleep_forever()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


def _called_tool(body: bytes) -> str | None:
    """The tool a JSON-RPC `tools/call` names (MCP 2025-11-25 server/tools), else None."""
    try:
        message = json.loads(body or b"null")
    except ValueError:
        return None
    if isinstance(message, dict) and message.get("method") == "tools/call":
        name = (message.get("params") or {}).get("name")
        return name if isinstance(name, str) else None
    return None


async def _json(send: Any, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
    data = json.dumps(body).encode()
    fields = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
              *((k.encode(), v.encode()) for k, v in (headers or {}).items())]
    await send({"type": "http.response.start", "status": status, "headers": fields})
    await send({"type": "http.response.body", "body": data})


def build_app(issuer: str, resource: str, client_id: str, client_secret: str) -> BearerGuard:
    """The ASGI app: the MCP endpoint at the resource's path, guarded."""
    host = urlsplit(resource).netloc
    app = notes_server().streamable_http_app(
        streamable_http_path=urlsplit(resource).path, stateless_http=True, json_response=True,
        transport_security=TransportSecuritySettings(allowed_hosts=[host]))
    return BearerGuard(app, issuer=issuer, resource=resource, client_id=client_id, client_secret=client_secret)


def app_from_environment() -> BearerGuard:
    """The app configured by MCP_ISSUER, MCP_RESOURCE and the resource's introspection credentials."""
    env = os.environ
    return build_app(env["MCP_ISSUER"], env["MCP_RESOURCE"], env["MCP_INTROSPECTION_CLIENT_ID"],
                     env["MCP_INTROSPECTION_CLIENT_SECRET"])


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """AWS Lambda behind API Gateway (REST or HTTP API), through Mangum.

    Mangum runs the ASGI lifespan around every invocation, and the MCP session manager starts
    once per instance, so each invocation gets a fresh (stateless) app; the JWKS stays cached.
    """
    from mangum import Mangum

    return dict(Mangum(app_from_environment(), lifespan="auto")(event, context))


def main() -> None:
    import uvicorn

    app = app_from_environment()
    parts = urlsplit(app.resource)
    uvicorn.run(app, host=parts.hostname or "127.0.0.1", port=parts.port or 80, log_level="warning")


if __name__ == "__main__":
    main()
