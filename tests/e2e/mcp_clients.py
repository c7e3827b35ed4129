"""The MCP clients of the end-to-end tests: the official Python SDK (`mcp`) driven here, the official
TypeScript SDK (tests/e2e/js/mcp_client.mjs) driven through its stdin/stdout, and the person who
signs in: `Consent` answers authgate's sign-in and consent page over HTTP as alice.

Both SDK runs go through the same scenario and report the same observations (every HTTP exchange
the SDK made, the authorization requests, the tokens), so the tests assert one shape for both:
1. call `list_notes` (mcp:read): 401 → RFC 9728 metadata → RFC 8414 metadata → client ID
   metadata document or dynamic registration → code flow with PKCE and `resource` → the call;
2. call `add_note` (mcp:write): 403 insufficient_scope → a new authorization for more scopes;
3. refresh (the access token is made to look expired to the SDK) and call `list_notes` again;
4. the test revokes the grant; `list_notes` is refused (401 invalid_token) and the SDK asks for
   a new authorization, which the person declines.
"""

from __future__ import annotations

import base64
import html
import json
import re
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import requests

REDIRECT_URI = "http://127.0.0.1:8765/mcp/callback"
CLIENT_NAME = "authgate e2e agent"
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')
JS = Path(__file__).with_name("js")


class Declined(Exception):
    """The person declined a new authorization (the scenario's last step)."""


@dataclass
class Consent:
    """authgate's sign-in and consent page, answered as alice over plain HTTP."""

    base_url: str
    authorizations: list[dict[str, str]] = field(default_factory=list)
    pages: list[str] = field(default_factory=list)
    decline: bool = False

    def sign_in(self, authorization_url: str) -> dict[str, str]:
        """Open the authorization URL, sign in and approve; the redirect's query (code, state, iss)."""
        parts = urlsplit(authorization_url)
        assert f"{parts.scheme}://{parts.netloc}" == self.base_url, authorization_url
        self.authorizations.append(dict(parse_qsl(parts.query)))
        if self.decline:
            raise Declined(authorization_url)
        with requests.Session() as session:
            page = session.get(authorization_url, headers={"Accept": "text/html"}, allow_redirects=False, timeout=30)
            assert page.status_code == 200, (page.status_code, page.headers.get("Location"), page.text[:500])
            self.pages.append(page.text)
            fields = {name: html.unescape(value) for name, value in _HIDDEN.findall(page.text)}
            fields.update(username="alice", password="alice-password", decision="approve")
            if 'name="tenant"' in page.text:  # a client of no tenant: the person names their organisation
                fields["tenant"] = "demo"
            answer = session.post(f"{self.base_url}{parts.path}", data=fields, headers={"Accept": "text/html"},
                                  allow_redirects=False, timeout=30)
        assert answer.status_code == 303, (answer.status_code, answer.text[:500])
        location = urlsplit(answer.headers["Location"])
        assert f"{location.scheme}://{location.netloc}{location.path}" == REDIRECT_URI, answer.headers["Location"]
        return dict(parse_qsl(location.query))


def claims(jwt: str) -> dict[str, Any]:
    """A JWT's payload, unverified (the MCP server verifies; the test only reads)."""
    payload = jwt.split(".")[1]
    return dict(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))))


def exchange(method: str, url: str, status: int, headers: Any, form: dict[str, str]) -> dict[str, Any]:
    """One HTTP exchange as both drivers report it."""
    return {"method": method, "url": url.split("?")[0], "status": status,
            "www_authenticate": headers.get("www-authenticate"), "form": form}


# ------------------------------------------------------------------ the Python SDK

async def python_sdk_scenario(server_url: str, consent: Consent, revoke: Callable[[dict[str, Any]], None],
                              client_metadata_url: str | None = None) -> dict[str, Any]:
    """The scenario with the official Python SDK's `OAuthClientProvider` and `Client`."""
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

    class Memory:
        def __init__(self) -> None:
            self.tokens: OAuthToken | None = None
            self.client: OAuthClientInformationFull | None = None

        async def get_tokens(self) -> OAuthToken | None:
            return self.tokens

        async def set_tokens(self, tokens: OAuthToken) -> None:
            self.tokens = tokens

        async def get_client_info(self) -> OAuthClientInformationFull | None:
            return self.client

        async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
            self.client = client_info

    storage = Memory()
    redirect: dict[str, str] = {}

    async def redirect_handler(url: str) -> None:
        redirect.clear()
        redirect.update(await anyio.to_thread.run_sync(consent.sign_in, url))

    async def callback_handler() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=redirect["code"], state=redirect.get("state"), iss=redirect.get("iss"))

    metadata = OAuthClientMetadata(redirect_uris=[REDIRECT_URI], client_name=CLIENT_NAME,  # type: ignore[list-item]
                                   grant_types=["authorization_code", "refresh_token"], response_types=["code"],
                                   token_endpoint_auth_method="none")
    provider = OAuthClientProvider(server_url, metadata, storage, redirect_handler, callback_handler,
                                   client_metadata_url=client_metadata_url)
    exchanges: list[dict[str, Any]] = []

    async def on_response(response: httpx2.Response) -> None:
        await response.aread()
        request = response.request
        registration = request.method == "POST" and request.url.path == "/oauth/register"
        form: dict[str, Any] = {}
        if registration:
            form = json.loads(request.content)
        elif request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
            form = dict(parse_qsl(request.content.decode()))
        exchanges.append(exchange(request.method, str(request.url), response.status_code, response.headers, form))
        if registration:
            exchanges[-1]["answer"] = response.json()  # the SDK keeps no RFC 7592 member

    result: dict[str, Any] = {"steps": []}
    revoked = False
    http = httpx2.AsyncClient(auth=provider, event_hooks={"response": [on_response]}, timeout=30)
    try:
        async with http, Client(streamable_http_client(server_url, http_client=http)) as client:
            listed = await client.call_tool("list_notes", {})
            result["steps"].append("list_notes")
            result["list_notes"] = {"is_error": listed.is_error, "text": _text(listed)}
            result["first_token"] = storage.tokens.model_dump(mode="json") if storage.tokens else None
            result["client"] = storage.client.model_dump(mode="json", exclude_none=True) if storage.client else None

            added = await client.call_tool("add_note", {"text": "from the Python SDK"})
            result["steps"].append("add_note")
            result["add_note"] = {"is_error": added.is_error, "text": _text(added)}
            result["stepped_up_token"] = storage.tokens.model_dump(mode="json") if storage.tokens else None

            # The SDK refreshes a token it believes expired before the next request (oauth2.py _auth_flow).
            provider.context.token_expiry_time = time.time() - 1
            again = await client.call_tool("list_notes", {})
            result["steps"].append("refresh")
            result["after_refresh"] = {"is_error": again.is_error, "text": _text(again)}
            result["refreshed_token"] = storage.tokens.model_dump(mode="json") if storage.tokens else None

            assert storage.tokens is not None
            await anyio.to_thread.run_sync(revoke, storage.tokens.model_dump(mode="json"))
            consent.decline = True
            revoked = True
            refused = await client.call_tool("list_notes", {})
            result["after_revocation"] = {"is_error": refused.is_error, "text": _text(refused)}
    except Exception as exc:  # the SDK's task group wraps the declined re-authorization
        if not revoked:
            raise
        result["after_revocation"] = {"raised": _root(exc)}
    result["steps"].append("revoked")
    result["exchanges"] = exchanges
    return result


def _text(result: Any) -> str:
    return " ".join(getattr(item, "text", "") for item in result.content)


def _root(exc: BaseException) -> str:
    """`Declined` when the person's refusal is behind `exc` (anyio wraps the SDK's errors), else its class."""
    seen: list[BaseException] = [exc]
    while seen:
        current = seen.pop()
        if isinstance(current, Declined):
            return "Declined"
        if isinstance(current, BaseExceptionGroup):
            seen.extend(current.exceptions)
        seen.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return type(exc).__name__


# ------------------------------------------------------------------ the TypeScript SDK

def typescript_sdk_scenario(server_url: str, consent: Consent, revoke: Callable[[dict[str, Any]], None],
                            client_metadata_url: str | None = None, timeout: float = 90) -> dict[str, Any]:
    """The scenario with the official TypeScript SDK on Node (js/mcp_client.mjs), one JSON line per message."""
    env = {"MCP_SERVER_URL": server_url, "REDIRECT_URI": REDIRECT_URI, "CLIENT_NAME": CLIENT_NAME,
           "PATH": "/usr/bin:/bin:/usr/local/bin", **({"CLIENT_METADATA_URL": client_metadata_url}
                                                      if client_metadata_url else {})}
    process = subprocess.Popen(["node", str(JS / "mcp_client.mjs")], env=env, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
    assert process.stdin is not None and process.stdout is not None
    deadline = time.monotonic() + timeout
    try:
        for line in process.stdout:
            message = json.loads(line)
            if "authorize" in message:
                try:
                    answer: dict[str, Any] = consent.sign_in(message["authorize"])
                except Declined:
                    answer = {"declined": True}
            elif "revoke" in message:
                revoke(message["revoke"])
                consent.decline = True
                answer = {"revoked": True}
            else:
                return dict(message["result"])
            process.stdin.write(json.dumps(answer) + "\n")
            process.stdin.flush()
            if time.monotonic() > deadline:
                raise TimeoutError("the TypeScript SDK scenario did not finish")
        raise AssertionError(f"mcp_client.mjs ended without a result: {process.stderr.read() if process.stderr else ''}")
    finally:
        process.kill()
        process.wait(timeout=10)
