"""The demo agent: asks bob to approve a payment of 12.50 and, once he did, charges it (CIBA, RFC 9396).

`GET /agent` says what the agent will ask and offers the button that asks: opening the page sends
nothing. The button (`POST /agent`) sends the backchannel request (OpenID Connect CIBA Core 1.0 7.1)
with a `charge` authorization_details entry (RFC 9396 2) and redirects to `/agent/request`, which
shows it (a reload asks nothing again); `/agent/poll` polls the token endpoint with the CIBA grant
(10.1) and, with the token, charges twice: the first is created, the second refused.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from urllib.parse import quote

from authgate_cli.local.demo_app.clients import CIBA, DemoClient
from authgate_cli.local.demo_app.expiring import Expiring
from authgate_cli.local.demo_app.pages import Answer, numbered, page, part, pre, pretty
from authgate_cli.local.demo_app.stack_api import StackApi, claims_of

# The payment the agent asks bob for (RFC 9396 2).
AGENT_PAYMENT = {"type": "charge", "actions": ["create"], "amount": 1250, "currency": "usd",
                 "description": "Order 1042", "max_charges": 1}
AGENT_PAYER = "bob"


@dataclass(frozen=True)
class Asked:
    """A request the agent sent: its auth_req_id, and the section showing the request and the answer."""

    auth_req_id: str
    shown: str


@dataclass
class AgentFlow:
    """The agent's side of CIBA poll mode; the auth_req_ids it got are known only to this app."""

    api: StackApi
    agent: DemoClient
    # The payer's one-time-code key from the seed (its totp_secret), for the page's hint; "" when it has none.
    payer_key: str = ""
    _asked: Expiring[Asked] = field(default_factory=Expiring)

    def offer(self) -> Answer:
        """What the agent will ask, and the button that asks: nothing is sent until it is pressed."""
        body = (f"<p><code>{self.agent.client_id}</code>, an agent allowed only the CIBA grant, will ask authgate to "
                f"have {AGENT_PAYER} approve one charge of 12.50 USD for Order 1042 (CIBA, with a <code>charge</code> "
                f"<code>authorization_details</code>). authgate then mails {AGENT_PAYER} a single-use approval link "
                '(here: to the <a href="/outbox">outbox</a>).</p>'
                '<form method="post" action="/agent"><div class="actions">'
                f"<button type=\"submit\">Ask {AGENT_PAYER} to approve 12.50</button></div></form>")
        return page(self.api.issuer, 200, "An agent asks to pay 12.50", body, form=True)

    def asks(self) -> Answer:
        """CIBA 7.1: the agent asks bob, through authgate, to approve one charge of 12.50 for Order 1042; then the
        page of the request (POST, redirect, GET: a reload sends nothing again)."""
        agent, issuer = self.agent, self.api.issuer
        form = {"scope": "openid charges:write", "login_hint": AGENT_PAYER, "binding_message": "Order 1042",
                "authorization_details": json.dumps([AGENT_PAYMENT], separators=(",", ":"))}
        status, body = self.api.post_token(agent, form, path="/oauth/backchannel")
        curl = (f"curl -s -u {agent.client_id}:{agent.secret} -d 'scope=openid charges:write' -d login_hint="
                f"{AGENT_PAYER} \\\n  -d binding_message='Order 1042' \\\n  --data-urlencode 'authorization_details="
                f"{form['authorization_details']}' \\\n  {issuer}/oauth/backchannel")
        asked = (f"The agent asks: HTTP {status}", pre(curl) + pre(pretty(body)))
        auth_req_id = body.get("auth_req_id") if isinstance(body, dict) else None
        if status != 200 or not isinstance(auth_req_id, str):
            return page(issuer, 200, "The agent's request was refused",
                        numbered([asked]) + '<p><a href="/agent">Start again</a></p>')
        handle = self._asked.put(Asked(auth_req_id, asked[1]))
        return 303, [("Location", f"/agent/request?t={quote(handle)}"), ("Cache-Control", "no-store"),
                     ("Referrer-Policy", "no-referrer")], b""

    def asked(self, handle: str) -> Answer:
        """The request the agent sent, and what bob and the agent do next."""
        issuer = self.api.issuer
        asked = self._asked.get(handle)
        if asked is None:
            return _unknown(issuer)
        code = (f"<code>.venv/bin/python -c 'import pyotp; print(pyotp.TOTP(\"{self.payer_key}\").now())'</code>, "
                "or an authenticator app with that key" if self.payer_key else "an authenticator app")
        steps = [
            ("The agent asks: HTTP 200", asked.shown),
            (f"{AGENT_PAYER} approves on his own device", (
                f'<p>authgate sent {AGENT_PAYER} a single-use approval link (here: to the <a href="/outbox" '
                f'target="_blank">outbox</a>). Open it, sign in as <code>{AGENT_PAYER}</code> / '
                f"<code>bob-password</code> with the one-time code of his authenticator app ({code}), and "
                "approve.</p>")),
            ("Meanwhile the agent polls", (
                f'<p><a class="button" href="/agent/poll?t={quote(handle)}">Check whether {AGENT_PAYER} approved</a> '
                '<span class="fine">POST /oauth/token with the CIBA grant, at most every 5 seconds</span></p>')),
        ]
        return page(issuer, 200, "An agent asks to pay 12.50", numbered(steps))

    def polls(self, handle: str) -> Answer:
        """CIBA 10.1: the agent polls; with the token it charges 12.50, then tries once more (RFC 9396)."""
        issuer = self.api.issuer
        asked = self._asked.get(handle)
        if asked is None:
            return _unknown(issuer)
        status, body = self.api.post_token(self.agent, {"grant_type": CIBA, "auth_req_id": asked.auth_req_id})
        polled = pre(pretty(body))
        access = body.get("access_token") if isinstance(body, dict) else None
        if status != 200 or not isinstance(access, str):
            pending = isinstance(body, dict) and body.get("error") in ("authorization_pending", "slow_down")
            again = (f'<p><a class="button" href="/agent/poll?t={quote(handle)}">Check again</a></p>' if pending
                     else '<p><a href="/agent">Start again</a></p>')
            return page(issuer, 200, "Not approved yet" if pending else "The request ended",
                        numbered([(f"The agent polls: HTTP {status}", polled)]) + again)
        self._asked.pop(handle)
        steps = [(f"The agent polls: HTTP {status}",
                  polled + part("The access token's claims: the approved payment", pre(pretty(claims_of(access)))))]
        for n, title in ((1, "The agent charges 12.50"), (2, "The agent tries to charge 12.50 again")):
            charge = {"amount": 1250, "currency": "usd", "description": "Order 1042"}
            charged, answer = self.api.post_charge(access, charge, f"demo-agent-{handle}-{n}")
            steps.append((f"{title}: HTTP {charged}", pre(pretty(answer))))
        return page(issuer, 200, "The agent paid 12.50, once", numbered(steps) + '<p><a href="/">The demo app</a></p>')


def _unknown(issuer: str) -> Answer:
    return page(issuer, 400, "No such request", '<p>This demo app holds no such request. '
                                                '<a href="/agent">Start again</a>.</p>')
