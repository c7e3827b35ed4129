"""The demo app `authgate serve` runs on the demo clients' redirect URIs (http://127.0.0.1:8765).

A newcomer's first authorization-code flow needs a client to come back to. This is that
client, for every seed client whose redirect URI lies under the demo app's origin:
- a confidential client (demo-web, demo-partner): `/login?client=ID` starts the flow with
  state and a PKCE pair (RFC 7636 4.1-4.2) kept in memory; its redirect URI is a page that
  checks `state` and `iss` (RFC 9207 2.4), exchanges the code at the token endpoint with the
  client's seeded secret (RFC 6749 4.1.3, client_secret_basic), calls `GET /charges` with the
  access token, and shows each step with the curl command that does the same;
- a public client (demo-spa): its redirect URI serves a single-page app that does the whole
  flow in the browser (PKCE, then a cross-origin POST to the token endpoint);
- an agent (demo-agent, a confidential client allowed the CIBA grant): `/agent` asks bob to
  approve a payment of 12.50 (OpenID Connect CIBA Core 1.0 7.1 with RFC 9396 `charge`
  authorization_details), `/agent/poll` polls for the token (10.1) and, once bob approved on the
  page the outbox links to, charges twice: the first is created, the second refused
  (authorization_details_exceeded).

Local only: it holds the demo secrets from the seed and shows the tokens it gets. Its requests
are logged like the emulator's, one JSON line each, without the query string (codes travel there).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import html
import json
import re
import secrets
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from string import Template
from typing import Any, TextIO
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

from authgate_cli.local.asgi import Receive, Scope, Send, lifespan

# How long a started sign-in may take before its state is forgotten (the login form lasts 10 min).
PENDING_SECONDS = 600
STYLESHEET_PATH = "/assets/authgate.css"


@dataclass(frozen=True)
class DemoClient:
    client_id: str
    name: str
    secret: str | None
    redirect_uri: str
    scopes: tuple[str, ...]
    grant_types: tuple[str, ...]

    @property
    def path(self) -> str:
        return urlsplit(self.redirect_uri).path or "/"

    @property
    def is_public(self) -> bool:
        return self.secret is None


def demo_clients(seed_clients: list[Mapping[str, Any]], origin: str,
                 tenants: list[Mapping[str, Any]] | None = None) -> list[DemoClient]:
    """The seed's local authorization-code clients whose first redirect URI is under `origin`, each with the
    scopes it is registered with that its tenant (in `tenants`) does not forbid."""
    forbidden = {str(t.get("tenant_id")): set(t.get("forbidden_scopes") or ()) for t in tenants or ()}
    out = []
    for raw in seed_clients:
        uris = [u for u in raw.get("redirect_uris") or [] if isinstance(u, str) and u.startswith(origin + "/")]
        if (not uris or raw.get("environment", "local") != "local"
                or "authorization_code" not in (raw.get("grant_types") or [])):
            continue
        if raw.get("client_type") == "confidential" and not raw.get("secret"):
            # demo-fapi (private_key_jwt, PAR, DPoP) is driven by a client library: docs/fapi2.md.
            continue
        out.append(DemoClient(client_id=str(raw["client_id"]), name=str(raw.get("name") or raw["client_id"]),
                              secret=raw.get("secret"), redirect_uri=uris[0],
                              scopes=tuple(s for s in raw.get("scopes") or ()
                                           if s not in forbidden.get(str(raw.get("tenant_id")), set())),
                              grant_types=tuple(raw.get("grant_types") or ())))
    return out


def demo_agent(seed_clients: list[Mapping[str, Any]]) -> DemoClient | None:
    """The seed's local confidential client allowed the CIBA grant (OpenID Connect CIBA Core 1.0 4), if any."""
    for raw in seed_clients:
        if (raw.get("environment", "local") == "local" and raw.get("secret")
                and CIBA in (raw.get("grant_types") or [])):
            return DemoClient(client_id=str(raw["client_id"]), name=str(raw.get("name") or raw["client_id"]),
                              secret=str(raw["secret"]), redirect_uri="", scopes=tuple(raw.get("scopes") or ()),
                              grant_types=tuple(raw.get("grant_types") or ()))
    return None


@dataclass
class Pending:
    client: DemoClient
    verifier: str
    expires: float
    # A step-up started by the charge button (RFC 9470): the charge's Idempotency-Key to retry with.
    charge_key: str = ""


@dataclass
class Held:
    """An access token this app holds for the charge button (never shown in a link: a random handle names it)."""

    client: DemoClient
    access_token: str
    expires: float
    charge_key: str = field(default_factory=lambda: f"demo-charge-{secrets.token_urlsafe(12)}")


@dataclass
class Asked:
    """A backchannel request the agent made (CIBA 7.3): its auth_req_id, known only to this app."""

    auth_req_id: str
    expires: float


# The CIBA grant (OpenID Connect CIBA Core 1.0 10.1) and the payment the agent asks bob for (RFC 9396 2).
CIBA = "urn:openid:params:grant-type:ciba"
AGENT_PAYMENT = {"type": "charge", "actions": ["create"], "amount": 1250, "currency": "usd",
                 "description": "Order 1042", "max_charges": 1}
AGENT_PAYER = "bob"
# The demo tenant's strong-authentication threshold is 10000 (100.00): 150.00 meets it (RFC 9470).
CHARGE = {"amount": 15000, "currency": "usd", "description": "Demo charge of 150.00"}
_CHALLENGE_PARAM = re.compile(r'([A-Za-z_]+)="((?:[^"\\]|\\.)*)"|([A-Za-z_]+)=([^\s,"]+)')


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
    # The agent of "an agent asks to pay 12.50" (demo_agent), if the seed has one.
    agent: DemoClient | None = None
    _pending: dict[str, Pending] = field(default_factory=dict)
    _asked: dict[str, Asked] = field(default_factory=dict)
    _held: dict[str, Held] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        started = time.perf_counter()
        path = scope["path"]
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True))
        status, headers, body = await asyncio.get_running_loop().run_in_executor(
            None, self.answer, scope["method"], path, query)
        headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
        headers.append((b"content-length", str(len(body)).encode("ascii")))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        self._log_line(scope["method"], path, status, started)

    # ------------------------------------------------------------------ routing
    def answer(self, method: str, path: str, query: Mapping[str, str]) -> tuple[int, list[tuple[str, str]], bytes]:
        if method not in ("GET", "HEAD"):
            return self._page(405, "Method not allowed", "<p>The demo app only answers GET.</p>",
                              extra=[("Allow", "GET, HEAD")])
        if path == "/":
            return self._index()
        if path == "/login":
            return self._login(query.get("client", ""), step_up=query.get("step_up", ""))
        if path == "/charge":
            return self._charge(query.get("t", ""))
        if path == "/agent" and self.agent is not None:
            return self._agent_asks(self.agent)
        if path == "/agent/poll" and self.agent is not None:
            return self._agent_polls(self.agent, query.get("t", ""))
        if path == "/outbox.json":
            return 200, [("Content-Type", "application/json"), ("Cache-Control", "no-store"),
                         ("X-Content-Type-Options", "nosniff")], json.dumps(self._entries(), indent=2).encode("utf-8")
        if path == "/outbox":
            return self._outbox()
        if path == "/spa.js":
            return 200, [("Content-Type", "text/javascript; charset=utf-8"), ("Cache-Control", "no-cache"),
                         ("X-Content-Type-Options", "nosniff")], _asset("spa.js").encode("utf-8")
        client = next((c for c in self.clients if c.path == path), None)
        if client is not None and client.is_public:
            return self._spa(client)
        if client is not None:
            return self._callback(client, query)
        return self._page(404, "Not found", f"<p>The demo app has nothing at <code>{html.escape(path)}</code>. "
                                            f'Start from <a href="/">the demo app</a>.</p>')

    def _index(self) -> tuple[int, list[tuple[str, str]], bytes]:
        items = []
        for c in self.clients:
            start = c.path if c.is_public else f"/login?client={quote(c.client_id)}"
            kind = ("public client: PKCE and the token request run in your browser" if c.is_public
                    else "confidential client: this app exchanges the code with its secret")
            items.append(f'<li><a class="button" href="{html.escape(start)}">Sign in with '
                         f'{html.escape(c.client_id)}</a> <span class="fine">{html.escape(c.name)}: {kind}</span></li>')
        who = (f" as <code>{html.escape(self.user[0])}</code> / <code>{html.escape(self.user[1])}</code>"
               if self.user else "")
        if self.agent is not None:
            items.append(f'<li><a class="button" href="/agent">An agent asks to pay 12.50</a> <span class="fine">'
                         f"{html.escape(self.agent.client_id)} asks {AGENT_PAYER} to approve one charge of 12.50 USD "
                         "on his own device (CIBA, authorization_details)</span></li>")
        body = (f"<p>This is the client side of the authorization-code flow for the demo clients of "
                f"<code>{html.escape(self.issuer)}</code>. Sign in{who} and approve; you come back here "
                f"with a code, which is exchanged for tokens, and the access token then calls "
                f"<code>GET /charges</code>.</p>"
                f'<ul class="choices">{"".join(items)}</ul>'
                + f'<p>Change your password on <a href="{html.escape(self.issuer)}/oauth/account">your account '
                  "page</a>.</p>"
                + ('<p>Mail the stack would send (a forgotten-password link) lands in the '
                   '<a href="/outbox">outbox</a>.</p>' if self.outbox else ""))
        return self._page(200, "authgate demo app", body)

    def _entries(self) -> list[dict[str, object]]:
        from authgate.mail import outbox

        return outbox.read(self.outbox) if self.outbox else []

    def _outbox(self) -> tuple[int, list[tuple[str, str]], bytes]:
        """What the stack would have sent: mail (forgotten-password links) and other deliveries, newest first."""
        rows = []
        for entry in reversed(self._entries()):
            shown = {k: v for k, v in entry.items() if k not in ("id", "kind", "created_at")}
            when = time.strftime("%H:%M:%S", time.gmtime(int(str(entry.get("created_at", 0)))))
            text = html.escape(str(shown.pop("text", "")))
            # A mailed link is made clickable (the reset link is the point of the page).
            text = re.sub(r"(https?://[^\s<]+)", r'<a href="\1">\1</a>', text)
            meta = " ".join(f"<code>{html.escape(k)}</code>: {html.escape(str(v))}" for k, v in shown.items())
            rows.append(f'<li><p><strong>{html.escape(str(entry.get("kind", "")))}</strong> at {when} UTC. {meta}'
                        f"</p><pre>{text}</pre></li>")
        body = ("<p>On the local stack nothing is mailed or delivered: it lands here instead "
                '(<a href="/outbox.json">as JSON</a>; docs/local.md, "The outbox").</p>'
                + (f'<ul class="outbox">{"".join(rows)}</ul>' if rows else "<p>The outbox is empty.</p>"))
        return self._page(200, "Outbox", body)

    def _login(self, client_id: str, step_up: str = "") -> tuple[int, list[tuple[str, str]], bytes]:
        client = next((c for c in self.clients if c.client_id == client_id and not c.is_public), None)
        if client is None:
            return self._page(404, "Unknown demo client",
                              f"<p>No confidential demo client <code>{html.escape(client_id)}</code> "
                              f'redirects here. Start from <a href="/">the demo app</a>.</p>')
        state = secrets.token_urlsafe(24)
        verifier = secrets.token_urlsafe(48)  # 64 characters of the unreserved set (RFC 7636 4.1)
        with self._lock:
            now = time.monotonic()
            self._pending = {k: v for k, v in self._pending.items() if v.expires > now}
            held = self._held.get(step_up)
            self._pending[state] = Pending(client, verifier, now + PENDING_SECONDS,
                                           charge_key=held.charge_key if held else "")
        # No scope: the server grants the client's registered scopes its tenant allows (RFC 6749 3.3). An OpenID
        # Connect client asks for them by name, openid included, with a nonce (docs/oidc.md).
        params = {"response_type": "code", "client_id": client.client_id, "redirect_uri": client.redirect_uri,
                  "state": state, "code_challenge": challenge_of(verifier), "code_challenge_method": "S256"}
        if "openid" in client.scopes:
            params.update(scope=" ".join(client.scopes), nonce=secrets.token_urlsafe(16))
        if held is not None:
            # RFC 9470 4: ask again with what the charges API's challenge named.
            params.update(acr_values="mfa", max_age="300")
        location = f"{self.issuer}/oauth/authorize?{urlencode(params, quote_via=quote)}"
        return 302, [("Location", location), ("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer")], b""

    def _callback(self, client: DemoClient, query: Mapping[str, str]) -> tuple[int, list[tuple[str, str]], bytes]:
        with self._lock:
            pending = self._pending.pop(query.get("state", ""), None)
        if pending is None or pending.client.client_id != client.client_id or pending.expires < time.monotonic():
            return self._page(400, "This sign-in was not started here",
                              "<p>The <code>state</code> does not match a sign-in this demo app started (or it "
                              "is older than 10 minutes, or was already used). "
                              f'<a href="/login?client={quote(client.client_id)}">Start again</a>.</p>')
        if query.get("iss") != self.issuer:
            # RFC 9207 2.4: a response from another issuer must not be used.
            return self._page(400, "Response from an unexpected issuer",
                              f"<p>The response names the issuer <code>{html.escape(query.get('iss', ''))}"
                              f"</code>, not <code>{html.escape(self.issuer)}</code> (RFC 9207).</p>")
        if "error" in query:
            return self._page(200, f"The authorization server answered {query['error']}",
                              f"<p><code>error={html.escape(query['error'])}</code>: "
                              f"{html.escape(query.get('error_description', ''))}</p>"
                              f'<p><a href="/login?client={quote(client.client_id)}">Try again</a> or go back to '
                              f'<a href="/">the demo app</a>.</p>')
        code = query.get("code", "")
        exchange_form = {"grant_type": "authorization_code", "code": code, "redirect_uri": client.redirect_uri,
                         "code_verifier": pending.verifier}
        token_status, token_body = self._post_token(client, exchange_form)
        steps = [_step("1. The code came back", f"<p>{html.escape(client.redirect_uri)}?code=<code>"
                       f"{html.escape(code[:8])}…</code>&amp;state=…&amp;iss={html.escape(self.issuer)}</p>"
                       "<p>State and issuer match the sign-in this app started.</p>")]
        curl = (f"curl -s -u {client.client_id}:{client.secret} -d grant_type=authorization_code \\\n"
                f"  -d code={code} \\\n  --data-urlencode redirect_uri={client.redirect_uri} \\\n"
                f"  -d code_verifier={pending.verifier} \\\n  {self.issuer}/oauth/token")
        steps.append(_step(f"2. Code exchanged: HTTP {token_status}", _pre(curl) + _pre(_pretty(token_body))))
        access = token_body.get("access_token") if isinstance(token_body, dict) else None
        if token_status == 200 and isinstance(access, str):
            steps.append(_step("The access token's claims (decoded here, verified by the API)", _pre(_pretty(claims_of(access)))))
            id_token = token_body.get("id_token")
            if isinstance(id_token, str):
                steps.append(_step("The ID token's claims: who signed in, when and how (OpenID Connect)",
                                   _pre(_pretty(claims_of(id_token)))))
            charges_status, charges_body = self._get_charges(access)
            key = f"-H 'x-api-key: {self.api_key}' " if self.api_key else ""
            curl = (f"ACCESS_TOKEN={access}\n"
                    f"curl -s {key}-H \"Authorization: Bearer $ACCESS_TOKEN\" '{self.issuer}/charges?limit=5'")
            steps.append(_step(f"3. GET /charges: HTTP {charges_status}", _pre(curl) + _pre(_pretty(charges_body))))
            title = "Signed in: tokens issued and GET /charges called"
            handle = self._hold(client, access, pending.charge_key)
            if pending.charge_key:
                steps.append(self._charged(self._held[handle], retried=True))
                title = "Stepped up: the charge of 150.00 retried with the new token"
            elif "charges:write" in (claims_of(access).get("scope") or "").split():
                steps.append(_step("4. A charge at or above the threshold", (
                    f'<p><a class="button" href="/charge?t={quote(handle)}">Charge 150.00</a> '
                    '<span class="fine">POST /charges for 15000 usd: the demo tenant asks for a second factor '
                    "from 100.00 on (RFC 9470).</span></p>")))
        else:
            title = "The code exchange failed"
        more = (f'<p><a href="/login?client={quote(client.client_id)}">Sign in again</a> · '
                f'<a href="/">the demo app</a></p>')
        return self._page(200, title, "".join(steps) + more, flow_done=token_status == 200)

    def _hold(self, client: DemoClient, access_token: str, charge_key: str) -> str:
        handle = secrets.token_urlsafe(16)
        with self._lock:
            now = time.monotonic()
            self._held = {k: v for k, v in self._held.items() if v.expires > now}
            held = Held(client, access_token, now + PENDING_SECONDS)
            if charge_key:
                held.charge_key = charge_key  # the step-up's retry: the same Idempotency-Key
            self._held[handle] = held
        return handle

    def _charge(self, handle: str) -> tuple[int, list[tuple[str, str]], bytes]:
        """The charge button: POST /charges for 150.00; a step-up challenge leads to a new sign-in asking for it."""
        with self._lock:
            held = self._held.get(handle)
        if held is None or held.expires < time.monotonic():
            return self._page(400, "No token for this charge", "<p>This demo app no longer holds that token. "
                                                               '<a href="/">Sign in again</a>.</p>')
        return self._page(200, "Charge 150.00", self._charged(held, handle=handle))

    def _charged(self, held: Held, *, handle: str = "", retried: bool = False) -> str:
        headers = {"Authorization": f"Bearer {held.access_token}", "Accept": "application/json",
                   "Content-Type": "application/json", "Idempotency-Key": held.charge_key}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        answered: list[str] = []
        status, body = _call(f"{self.issuer}/charges", data=json.dumps(CHARGE).encode(), headers=headers,
                             challenge=answered)
        challenge = answered[0] if answered else ""
        title = f"{'5. The charge retried' if retried else 'POST /charges'} for 150.00: HTTP {status}"
        shown = _pre(_pretty(body))
        if status == 401 and challenge:
            params = {m[0] or m[2]: m[1] or m[3] for m in _CHALLENGE_PARAM.findall(challenge.split("DPoP ", 1)[0])}
            if params.get("error") == "insufficient_user_authentication" and handle:
                shown = (f"<p>The API asks for a stronger sign-in: <code>WWW-Authenticate: {html.escape(challenge)}"
                         "</code></p>" + shown +
                         f'<p><a class="button" href="/login?client={quote(held.client.client_id)}&amp;step_up='
                         f'{quote(handle)}">Sign in with a second factor</a> <span class="fine">authorizes again '
                         f"with acr_values={html.escape(params.get('acr_values', 'mfa'))} and max_age="
                         f"{html.escape(params.get('max_age', '300'))}; bob gives his one-time code</span></p>")
        return _step(title, shown)

    def _agent_asks(self, agent: DemoClient) -> tuple[int, list[tuple[str, str]], bytes]:
        """CIBA 7.1: the agent asks bob, through authgate, to approve one charge of 12.50 for Order 1042."""
        form = {"scope": "openid charges:write", "login_hint": AGENT_PAYER, "binding_message": "Order 1042",
                "authorization_details": json.dumps([AGENT_PAYMENT], separators=(",", ":"))}
        status, body = self._post_token(agent, form, path="/oauth/backchannel")
        curl = (f"curl -s -u {agent.client_id}:{agent.secret} -d 'scope=openid charges:write' -d login_hint="
                f"{AGENT_PAYER} \\\n  -d binding_message='Order 1042' \\\n  --data-urlencode 'authorization_details="
                f"{form['authorization_details']}' \\\n  {self.issuer}/oauth/backchannel")
        steps = [_step(f"1. The agent asks: HTTP {status}", _pre(curl) + _pre(_pretty(body)))]
        auth_req_id = body.get("auth_req_id") if isinstance(body, dict) else None
        if status != 200 or not isinstance(auth_req_id, str):
            return self._page(200, "The agent's request was refused", "".join(steps))
        handle = secrets.token_urlsafe(16)
        with self._lock:
            now = time.monotonic()
            self._asked = {k: v for k, v in self._asked.items() if v.expires > now}
            self._asked[handle] = Asked(auth_req_id, now + PENDING_SECONDS)
        steps.append(_step(f"2. {AGENT_PAYER} approves on his own device", (
            f'<p>authgate sent {AGENT_PAYER} a single-use approval link (here: to the <a href="/outbox" '
            f'target="_blank">outbox</a>). Open it, sign in as <code>{AGENT_PAYER}</code> / <code>bob-password</code> '
            "with the one-time code of his authenticator app (the seed's TOTP key; <code>oathtool --totp -b "
            "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ</code>), and approve.</p>")))
        steps.append(_step("3. Meanwhile the agent polls", (
            f'<p><a class="button" href="/agent/poll?t={quote(handle)}">Check whether {AGENT_PAYER} approved</a> '
            '<span class="fine">POST /oauth/token with the CIBA grant, at most every 5 seconds</span></p>')))
        return self._page(200, "An agent asks to pay 12.50", "".join(steps))

    def _agent_polls(self, agent: DemoClient, handle: str) -> tuple[int, list[tuple[str, str]], bytes]:
        """CIBA 10.1: the agent polls; with the token it charges 12.50, then tries once more (RFC 9396)."""
        with self._lock:
            asked = self._asked.get(handle)
        if asked is None or asked.expires < time.monotonic():
            return self._page(400, "No request to poll", '<p>This demo app holds no such request. '
                                                         '<a href="/agent">Start again</a>.</p>')
        status, body = self._post_token(agent, {"grant_type": CIBA, "auth_req_id": asked.auth_req_id})
        steps = [_step(f"The agent polls: HTTP {status}", _pre(_pretty(body)))]
        access = body.get("access_token") if isinstance(body, dict) else None
        if status != 200 or not isinstance(access, str):
            pending = isinstance(body, dict) and body.get("error") in ("authorization_pending", "slow_down")
            again = (f'<p><a class="button" href="/agent/poll?t={quote(handle)}">Check again</a></p>' if pending
                     else '<p><a href="/agent">Start again</a></p>')
            return self._page(200, "Not approved yet" if pending else "The request ended", "".join(steps) + again)
        with self._lock:
            self._asked.pop(handle, None)
        steps.append(_step("The access token's claims: the approved payment", _pre(_pretty(claims_of(access)))))
        for n, title in ((1, "The agent charges 12.50"), (2, "The agent tries to charge 12.50 again")):
            headers = {"Authorization": f"Bearer {access}", "Accept": "application/json",
                       "Content-Type": "application/json", "Idempotency-Key": f"demo-agent-{handle}-{n}"}
            if self.api_key:
                headers["x-api-key"] = self.api_key
            charge = {"amount": 1250, "currency": "usd", "description": "Order 1042"}
            charged, answer = _call(f"{self.issuer}/charges", data=json.dumps(charge).encode(), headers=headers)
            steps.append(_step(f"{title}: HTTP {charged}", _pre(_pretty(answer))))
        return self._page(200, "The agent paid 12.50, once", "".join(steps) + '<p><a href="/">The demo app</a></p>')

    def _spa(self, client: DemoClient) -> tuple[int, list[tuple[str, str]], bytes]:
        config = html.escape(json.dumps({"issuer": self.issuer, "client_id": client.client_id,
                                         "redirect_uri": client.redirect_uri, "api_key": self.api_key}))
        body = (f'<div id="spa" data-config="{config}"><p>Loading the single-page app…</p></div>'
                f'<noscript><p>This page needs JavaScript: the public client runs in the browser.</p></noscript>')
        return self._page(200, f"{client.name} (a browser-based public client)", body, script="/spa.js")

    # ------------------------------------------------------------------ calls to the API
    def _post_token(self, client: DemoClient, form: Mapping[str, str], path: str = "/oauth/token") -> tuple[int, Any]:
        # client_secret_basic: id and secret form-urlencoded before Basic (RFC 6749 2.3.1); the token endpoint's
        # client authentication at the backchannel endpoint too (CIBA 7.1).
        basic = base64.b64encode(f"{quote(client.client_id, safe='')}:{quote(client.secret or '', safe='')}"
                                 .encode()).decode("ascii")
        return _call(f"{self.issuer}{path}", data=urlencode(form).encode("ascii"),
                     headers={"Authorization": f"Basic {basic}",
                              "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"})

    def _get_charges(self, access_token: str) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {access_token}", "Accept": "application/json"}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        return _call(f"{self.issuer}/charges?limit=5", headers=headers)

    # ------------------------------------------------------------------ pages
    def _page(self, status: int, title: str, body: str, *, script: str | None = None, flow_done: bool = False,
              extra: list[tuple[str, str]] | None = None) -> tuple[int, list[tuple[str, str]], bytes]:
        page = _template().substitute(
            title=html.escape(title), body=body, stylesheet=html.escape(self.issuer + STYLESHEET_PATH),
            script=f'<script src="{html.escape(script)}" defer></script>' if script else "",
            done="true" if flow_done else "false")
        return status, [*page_headers(self.issuer, script=script is not None), *(extra or [])], page.encode("utf-8")

    def _log_line(self, method: str, path: str, status: int, started: float) -> None:
        if self.log is None:
            return
        self.log.write(json.dumps({
            "level": "INFO", "message": "request", "service": "authgate-demo-app",
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "method": method,
            "path": path, "status": status, "duration_ms": round((time.perf_counter() - started) * 1000, 2),
        }) + "\n")
        self.log.flush()


def page_headers(issuer: str, *, script: bool = False) -> list[tuple[str, str]]:
    """The demo app's pages: the API's stylesheet, its own script, fetches to the API, nothing else."""
    policy = ["default-src 'none'", f"style-src {issuer}", "img-src 'self'"]
    if script:
        policy += ["script-src 'self'", f"connect-src {issuer}"]
    policy += ["form-action 'none'", "frame-ancestors 'none'", "base-uri 'none'"]
    return [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
            ("Content-Security-Policy", "; ".join(policy)), ("X-Content-Type-Options", "nosniff"),
            # The callback URL carries the code: never send it on (stylesheet, links).
            ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY")]


def challenge_of(verifier: str) -> str:
    """S256 code challenge (RFC 7636 4.2)."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def claims_of(jwt: str) -> Any:
    """The payload of a JWS compact serialization, decoded without verification (for display only)."""
    try:
        payload = jwt.split(".")[1]
        return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        return {"note": "not a JWT"}


def _call(url: str, *, data: bytes | None = None, headers: Mapping[str, str],
          challenge: list[str] | None = None) -> tuple[int, Any]:
    """(status, JSON body) of a call to the stack; a 401's WWW-Authenticate is appended to `challenge` when given."""
    request = urllib.request.Request(url, data=data, headers=dict(headers), method="POST" if data else "GET")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as failure:
        status, raw = failure.code, failure.read()
        if challenge is not None:
            challenge.append(failure.headers.get("WWW-Authenticate") or "")
    except OSError as exc:
        return 0, {"error": f"the API did not answer: {exc}"}
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode("utf-8", "replace")


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2) if not isinstance(value, str) else value


def _pre(text: str) -> str:
    return f"<pre>{html.escape(text)}</pre>"


def _step(title: str, body: str) -> str:
    return f'<section class="step"><h2>{html.escape(title)}</h2>{body}</section>'


@lru_cache(maxsize=4)
def _asset(name: str) -> str:
    return resources.files("authgate_cli.local").joinpath(f"demo_pages/{name}").read_text("utf-8")


@lru_cache(maxsize=1)
def _template() -> Template:
    return Template(_asset("page.html"))
