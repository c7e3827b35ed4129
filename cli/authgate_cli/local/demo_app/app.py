"""The demo app as an ASGI application: its routes, its start page, the single-page app, its request log."""

from __future__ import annotations

import asyncio
import html
import json
import time
from collections.abc import Mapping
from dataclasses import InitVar, dataclass, field
from typing import TextIO
from urllib.parse import parse_qsl, quote

from authgate_cli.local.asgi import Receive, Scope, Send, lifespan
from authgate_cli.local.demo_app.agent import AGENT_PAYER, AgentFlow
from authgate_cli.local.demo_app.clients import DemoClient
from authgate_cli.local.demo_app.code_flow import CodeFlow
from authgate_cli.local.demo_app.events_page import events_page
from authgate_cli.local.demo_app.outbox_page import entries, outbox_page
from authgate_cli.local.demo_app.pages import Answer, asset, page
from authgate_cli.local.demo_app.stack_api import StackApi


@dataclass
class DemoApp:
    """ASGI application: the demo clients' side of the authorization-code flow."""

    issuer: str
    origin: str
    clients: list[DemoClient]
    api_key: str | None = None
    # A seeded (username, password) to suggest on the start page.
    user: tuple[str, str] | None = None
    log: TextIO | None = None
    # The stack's outbox (authgate.mail.outbox): what a deployed stage would have mailed or called.
    outbox: str = ""
    # The stack's audit trail directory (authgate_cli.local.audit_trail): its newest events at /events.
    audit_trail: str = ""
    # The agent of "an agent asks to pay 12.50" (demo_agent), if the seed has one.
    agent: InitVar[DemoClient | None] = None
    # The one-time-code key (totp_secret) of the agent's payer in the seed, shown as a hint; "" when it has none.
    payer_key: InitVar[str] = ""
    _code_flow: CodeFlow = field(init=False)
    _agent_flow: AgentFlow | None = field(init=False)

    def __post_init__(self, agent: DemoClient | None, payer_key: str) -> None:
        api = StackApi(self.issuer, self.api_key)
        self._code_flow = CodeFlow(api, self.clients)
        self._agent_flow = AgentFlow(api, agent, payer_key) if agent is not None else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        started = time.perf_counter()
        path = scope["path"]
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True))
        fetch_site = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"sec-fetch-site"), None)
        status, fields, body = await asyncio.get_running_loop().run_in_executor(
            None, self.answer, scope["method"], path, query, fetch_site)
        headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in fields]
        headers.append((b"content-length", str(len(body)).encode("ascii")))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        self._log_line(scope["method"], path, status, started)

    def answer(self, method: str, path: str, query: Mapping[str, str], fetch_site: str | None = None) -> Answer:
        """The answer to one request (`fetch_site`: its Sec-Fetch-Site header, if any)."""
        if method == "POST" and path == "/agent" and self._agent_flow is not None:
            if fetch_site not in (None, "same-origin"):
                # A form of another site must not make the agent ask (and mail bob): no cookie guards this app, and
                # its pages send no Referer, so a browser's Origin is "null" even for its own form (Fetch
                # Metadata Request Headers: Sec-Fetch-Site says whose page posted).
                return page(self.issuer, 403, "Forbidden", "<p>Only this demo app's own page may ask.</p>")
            return self._agent_flow.asks()
        if method not in ("GET", "HEAD"):
            allowed = "GET, HEAD, POST" if path == "/agent" and self._agent_flow is not None else "GET, HEAD"
            return page(self.issuer, 405, "Method not allowed",
                        "<p>The demo app answers GET, and POST on its agent's page only.</p>",
                        extra=[("Allow", allowed)])
        if path == "/":
            return self._index()
        if path == "/login":
            return self._code_flow.login(query.get("client", ""), step_up=query.get("step_up", ""))
        if path == "/charge":
            return self._code_flow.charge(query.get("t", ""))
        if path == "/agent" and self._agent_flow is not None:
            return self._agent_flow.offer()
        if path == "/agent/request" and self._agent_flow is not None:
            return self._agent_flow.asked(query.get("t", ""))
        if path == "/agent/poll" and self._agent_flow is not None:
            return self._agent_flow.polls(query.get("t", ""))
        if path == "/outbox.json":
            return 200, [("Content-Type", "application/json"), ("Cache-Control", "no-store"),
                         ("X-Content-Type-Options", "nosniff")], json.dumps(entries(self.outbox), indent=2).encode("utf-8")
        if path == "/outbox":
            return outbox_page(self.issuer, self.outbox)
        if path == "/events":
            return events_page(self.issuer, self.audit_trail)
        if path == "/spa.js":
            return 200, [("Content-Type", "text/javascript; charset=utf-8"), ("Cache-Control", "no-cache"),
                         ("X-Content-Type-Options", "nosniff")], asset("spa.js").encode("utf-8")
        client = next((c for c in self.clients if c.path == path), None)
        if client is not None and client.is_public:
            return self._spa(client)
        if client is not None:
            return self._code_flow.callback(client, query)
        return page(self.issuer, 404, "Not found", f"<p>The demo app has nothing at <code>{html.escape(path)}</code>. "
                                                   f'Start from <a href="/">the demo app</a>.</p>')

    def _index(self) -> Answer:
        items = []
        for c in self.clients:
            start = c.path if c.is_public else f"/login?client={quote(c.client_id)}"
            kind = ("public client: PKCE and the token request run in your browser" if c.is_public
                    else "confidential client: this app exchanges the code with its secret")
            items.append(f'<li><a class="button" href="{html.escape(start)}">Sign in with '
                         f'{html.escape(c.client_id)}</a> <span class="fine">{html.escape(c.name)}: {kind}</span></li>')
        who = (f" as <code>{html.escape(self.user[0])}</code> / <code>{html.escape(self.user[1])}</code>"
               if self.user else "")
        if self._agent_flow is not None:
            items.append(f'<li><a class="button" href="/agent">An agent asks to pay 12.50</a> <span class="fine">'
                         f"{html.escape(self._agent_flow.agent.client_id)} asks {AGENT_PAYER} to approve one charge "
                         "of 12.50 USD on his own device (CIBA, authorization_details)</span></li>")
        body = (f"<p>This is the client side of the authorization-code flow for the demo clients of "
                f"<code>{html.escape(self.issuer)}</code>. Sign in{who} and approve; you come back here "
                f"with a code, which is exchanged for tokens, and the access token then calls "
                f"<code>GET /charges</code>.</p>"
                f'<ul class="choices">{"".join(items)}</ul>'
                + f'<p>Change your password on <a href="{html.escape(self.issuer)}/oauth/account">your account '
                  "page</a>.</p>"
                + ('<p>Mail the stack would send (a forgotten-password link) lands in the '
                   '<a href="/outbox">outbox</a>.</p>' if self.outbox else "")
                + ('<p>What the stack recorded: <a href="/events">the audit trail</a>.</p>'
                   if self.audit_trail else ""))
        return page(self.issuer, 200, "authgate demo app", body)

    def _spa(self, client: DemoClient) -> Answer:
        config = html.escape(json.dumps({"issuer": self.issuer, "client_id": client.client_id,
                                         "redirect_uri": client.redirect_uri, "api_key": self.api_key}))
        body = (f'<div id="spa" data-config="{config}"><p>Loading the single-page app…</p></div>'
                f'<noscript><p>This page needs JavaScript: the public client runs in the browser.</p></noscript>')
        return page(self.issuer, 200, f"{client.name} (a browser-based public client)", body, script="/spa.js")

    def _log_line(self, method: str, path: str, status: int, started: float) -> None:
        if self.log is None:
            return
        self.log.write(json.dumps({
            "level": "INFO", "message": "request", "service": "authgate-demo-app",
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "method": method,
            "path": path, "status": status, "duration_ms": round((time.perf_counter() - started) * 1000, 2),
        }) + "\n")
        self.log.flush()
