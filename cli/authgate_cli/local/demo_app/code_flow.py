"""The confidential demo clients' authorization-code flow, and the charge button that may step it up.

`/login?client=ID` starts the flow with state and a PKCE pair (RFC 7636 4.1-4.2); the redirect URI's
page checks `state` and `iss` (RFC 9207 2.4), exchanges the code with the client's secret (RFC 6749
4.1.3), calls `GET /charges`, and offers a charge of 150.00 that the demo tenant answers with a
step-up challenge (RFC 9470 3); the new sign-in retries the charge with the same Idempotency-Key.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import quote, urlencode

from authgate_cli.local.demo_app.clients import DemoClient
from authgate_cli.local.demo_app.expiring import Expiring
from authgate_cli.local.demo_app.pages import Answer, numbered, page, part, pre, pretty, step
from authgate_cli.local.demo_app.stack_api import StackApi, claims_of

# The demo tenant's strong-authentication threshold is 10000 (100.00): 150.00 meets it (RFC 9470).
CHARGE = {"amount": 15000, "currency": "usd", "description": "Demo charge of 150.00"}
_CHALLENGE_PARAM = re.compile(r'([A-Za-z_]+)="((?:[^"\\]|\\.)*)"|([A-Za-z_]+)=([^\s,"]+)')


@dataclass(frozen=True)
class Pending:
    """A sign-in this app started, under its `state`."""

    client: DemoClient
    verifier: str
    # A step-up started by the charge button (RFC 9470): the charge's Idempotency-Key to retry with.
    charge_key: str = ""


@dataclass(frozen=True)
class Held:
    """An access token this app holds for the charge button (never shown in a link: a random handle names it)."""

    client: DemoClient
    access_token: str
    charge_key: str = field(default_factory=lambda: f"demo-charge-{secrets.token_urlsafe(12)}")


@dataclass
class CodeFlow:
    """The confidential clients' side of the authorization-code flow."""

    api: StackApi
    clients: list[DemoClient]
    _pending: Expiring[Pending] = field(default_factory=Expiring)
    _held: Expiring[Held] = field(default_factory=Expiring)

    @property
    def issuer(self) -> str:
        return self.api.issuer

    def login(self, client_id: str, step_up: str = "") -> Answer:
        client = next((c for c in self.clients if c.client_id == client_id and not c.is_public), None)
        if client is None:
            return page(self.issuer, 404, "Unknown demo client",
                        f"<p>No confidential demo client <code>{html.escape(client_id)}</code> "
                        f'redirects here. Start from <a href="/">the demo app</a>.</p>')
        state = secrets.token_urlsafe(24)
        verifier = secrets.token_urlsafe(48)  # 64 characters of the unreserved set (RFC 7636 4.1)
        held = self._held.get(step_up)
        self._pending.put(Pending(client, verifier, charge_key=held.charge_key if held else ""), key=state)
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

    def callback(self, client: DemoClient, query: Mapping[str, str]) -> Answer:
        pending = self._pending.pop(query.get("state", ""))
        if pending is None or pending.client.client_id != client.client_id:
            return page(self.issuer, 400, "This sign-in was not started here",
                        "<p>The <code>state</code> does not match a sign-in this demo app started (or it "
                        "is older than 10 minutes, or was already used). "
                        f'<a href="/login?client={quote(client.client_id)}">Start again</a>.</p>')
        if query.get("iss") != self.issuer:
            # RFC 9207 2.4: a response from another issuer must not be used.
            return page(self.issuer, 400, "Response from an unexpected issuer",
                        f"<p>The response names the issuer <code>{html.escape(query.get('iss', ''))}"
                        f"</code>, not <code>{html.escape(self.issuer)}</code> (RFC 9207).</p>")
        if "error" in query:
            return page(self.issuer, 200, f"The authorization server answered {query['error']}",
                        f"<p><code>error={html.escape(query['error'])}</code>: "
                        f"{html.escape(query.get('error_description', ''))}</p>"
                        f'<p><a href="/login?client={quote(client.client_id)}">Try again</a> or go back to '
                        f'<a href="/">the demo app</a>.</p>')
        code = query.get("code", "")
        exchange_form = {"grant_type": "authorization_code", "code": code, "redirect_uri": client.redirect_uri,
                         "code_verifier": pending.verifier}
        token_status, token_body = self.api.post_token(client, exchange_form)
        came_back = (f"<p>{html.escape(client.redirect_uri)}?code=<code>{html.escape(code[:8])}…</code>&amp;state=…"
                     f"&amp;iss={html.escape(self.issuer)}</p><p>State and issuer match the sign-in this app started.</p>")
        steps = [("The code came back", came_back)]
        curl = (f"curl -s -u {client.client_id}:{client.secret} -d grant_type=authorization_code \\\n"
                f"  -d code={code} \\\n  --data-urlencode redirect_uri={client.redirect_uri} \\\n"
                f"  -d code_verifier={pending.verifier} \\\n  {self.issuer}/oauth/token")
        access = token_body.get("access_token") if isinstance(token_body, dict) else None
        exchanged = pre(curl) + pre(pretty(token_body))
        if token_status == 200 and isinstance(access, str):
            exchanged += part("The access token's claims (decoded here, verified by the API)",
                              pre(pretty(claims_of(access))))
            id_token = token_body.get("id_token")
            if isinstance(id_token, str):
                exchanged += part("The ID token's claims: who signed in, when and how (OpenID Connect)",
                                  pre(pretty(claims_of(id_token))))
        steps.append((f"Code exchanged: HTTP {token_status}", exchanged))
        if token_status == 200 and isinstance(access, str):
            charges_status, charges_body = self.api.get_charges(access)
            key = f"-H 'x-api-key: {self.api.api_key}' " if self.api.api_key else ""
            curl = (f"ACCESS_TOKEN={access}\n"
                    f"curl -s {key}-H \"Authorization: Bearer $ACCESS_TOKEN\" '{self.issuer}/charges?limit=5'")
            steps.append((f"GET /charges: HTTP {charges_status}", pre(curl) + pre(pretty(charges_body))))
            title = "Signed in: tokens issued and GET /charges called"
            # The step-up's retry keeps the charge's Idempotency-Key.
            held = Held(client, access, pending.charge_key) if pending.charge_key else Held(client, access)
            handle = self._held.put(held)
            if pending.charge_key:
                steps.append(self._charged(held, retried=True))
                title = "Stepped up: the charge of 150.00 retried with the new token"
            elif "charges:write" in (claims_of(access).get("scope") or "").split():
                steps.append(("A charge at or above the threshold", (
                    f'<p><a class="button" href="/charge?t={quote(handle)}">Charge 150.00</a> '
                    '<span class="fine">POST /charges for 15000 usd: the demo tenant asks for a second factor '
                    "from 100.00 on (RFC 9470).</span></p>")))
        else:
            title = "The code exchange failed"
        more = (f'<p><a href="/login?client={quote(client.client_id)}">Sign in again</a> · '
                f'<a href="/">the demo app</a></p>')
        return page(self.issuer, 200, title, numbered(steps) + more, flow_done=token_status == 200)

    def charge(self, handle: str) -> Answer:
        """The charge button: POST /charges for 150.00; a step-up challenge leads to a new sign-in asking for it."""
        held = self._held.get(handle)
        if held is None:
            return page(self.issuer, 400, "No token for this charge", "<p>This demo app no longer holds that token. "
                                                                     '<a href="/">Sign in again</a>.</p>')
        return page(self.issuer, 200, "Charge 150.00", step(*self._charged(held, handle=handle)))

    def _charged(self, held: Held, *, handle: str = "", retried: bool = False) -> tuple[str, str]:
        """The charge of 150.00 as a section: (title, body)."""
        answered: list[str] = []
        status, body = self.api.post_charge(held.access_token, CHARGE, held.charge_key, challenge=answered)
        challenge = answered[0] if answered else ""
        title = f"{'The charge retried' if retried else 'POST /charges'} for 150.00: HTTP {status}"
        shown = pre(pretty(body))
        if status == 401 and challenge:
            params = {m[0] or m[2]: m[1] or m[3] for m in _CHALLENGE_PARAM.findall(challenge.split("DPoP ", 1)[0])}
            if params.get("error") == "insufficient_user_authentication" and handle:
                shown = (f"<p>The API asks for a stronger sign-in: <code>WWW-Authenticate: {html.escape(challenge)}"
                         "</code></p>" + shown +
                         f'<p><a class="button" href="/login?client={quote(held.client.client_id)}&amp;step_up='
                         f'{quote(handle)}">Sign in with a second factor</a> <span class="fine">authorizes again '
                         f"with acr_values={html.escape(params.get('acr_values', 'mfa'))} and max_age="
                         f"{html.escape(params.get('max_age', '300'))}; bob gives his one-time code</span></p>")
        return title, shown


def challenge_of(verifier: str) -> str:
    """S256 code challenge (RFC 7636 4.2)."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")
