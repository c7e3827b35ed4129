"""An MCP client that signs in with authgate: `python mcp_client.py http://127.0.0.1:8080/mcp`.

It finds authgate from the server's 401, registers itself (dynamic registration, or the Client ID
Metadata Document at MCP_CLIENT_METADATA_URL), opens the browser to sign in, keeps its registration
and tokens in MCP_CLIENT_STATE (default ~/.mcp-notes-client, readable by you only), and calls the
server's tools; a tool that needs more scope sends the person to the browser once more.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import webbrowser
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

SERVER = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080/mcp"
STATE = Path(os.environ.get("MCP_CLIENT_STATE") or Path.home() / ".mcp-notes-client")
METADATA_URL = os.environ.get("MCP_CLIENT_METADATA_URL")  # https URL of this client's metadata document
redirected: dict[str, str] = {}
arrived = threading.Event()


class CallbackHandler(BaseHTTPRequestHandler):
    """The redirect URI: keep the code, tell the person they may close the tab."""

    def do_GET(self) -> None:
        if urlsplit(self.path).path != "/callback":
            self.send_error(404)
            return
        redirected.update({k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()})
        arrived.set()
        body = b"<p>Signed in. You can close this tab and go back to the terminal.</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass  # the query holds the code: keep it out of the terminal


# The redirect comes back to this machine (RFC 8252 7.3). Port 0 picks a free one; a metadata
# document names its redirect URI, so with one, MCP_CALLBACK_PORT must be the port it names.
callback = HTTPServer(("127.0.0.1", int(os.environ.get("MCP_CALLBACK_PORT", "0"))), CallbackHandler)
REDIRECT_URI = f"http://127.0.0.1:{callback.server_address[1]}/callback"


class FileStorage:
    """The registration and tokens, in a file only this user may read (never in a repository)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> dict[str, Any]:
        return json.loads(self.path.read_text()) if self.path.exists() else {}

    def _write(self, key: str, value: dict[str, Any]) -> None:
        data = {**self._read(), key: value}
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with os.fdopen(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as file:
            json.dump(data, file)

    async def get_tokens(self) -> OAuthToken | None:
        stored = self._read().get("tokens")
        return OAuthToken.model_validate(stored) if stored else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self._write("tokens", tokens.model_dump(mode="json", exclude_none=True))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        stored = self._read().get("client")
        client = OAuthClientInformationFull.model_validate(stored) if stored else None
        # A registration for another redirect URI (another port) cannot be used: register again.
        return client if client and REDIRECT_URI in [str(u) for u in client.redirect_uris or []] else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._write("client", client_info.model_dump(mode="json", exclude_none=True))


async def open_browser(url: str) -> None:
    redirected.clear()
    arrived.clear()
    print(f"Sign in in your browser (or open this URL): {url}", flush=True)
    await anyio.to_thread.run_sync(webbrowser.open, url)


async def wait_for_callback() -> AuthorizationCodeResult:
    if not await anyio.to_thread.run_sync(arrived.wait, 300):
        raise TimeoutError("no sign-in within 5 minutes")
    if "error" in redirected:
        raise RuntimeError(f"authorization refused: {redirected['error']} {redirected.get('error_description', '')}")
    return AuthorizationCodeResult(code=redirected["code"], state=redirected.get("state"), iss=redirected.get("iss"))


def text(result: Any) -> str:
    return " ".join(getattr(item, "text", "") for item in result.content)


async def main() -> None:
    threading.Thread(target=callback.serve_forever, daemon=True).start()
    metadata = OAuthClientMetadata(client_name="Notes client (authgate example)", redirect_uris=[REDIRECT_URI],
                                   grant_types=["authorization_code", "refresh_token"], response_types=["code"],
                                   token_endpoint_auth_method="none")
    provider = OAuthClientProvider(SERVER, metadata, FileStorage(STATE / "oauth.json"), open_browser,
                                   wait_for_callback, client_metadata_url=METADATA_URL)
    async with httpx2.AsyncClient(auth=provider, timeout=30) as http, \
            Client(streamable_http_client(SERVER, http_client=http)) as client:
        tools = await client.list_tools()
        print("tools:", ", ".join(tool.name for tool in tools.tools))
        print("list_notes:", text(await client.call_tool("list_notes", {})))
        print("add_note:", text(await client.call_tool("add_note", {"text": "written by mcp_client.py"})))
        print("list_notes:", text(await client.call_tool("list_notes", {})))


if __name__ == "__main__":
    asyncio.run(main())
