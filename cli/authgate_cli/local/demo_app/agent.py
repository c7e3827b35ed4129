"""The demo agent: asks bob to approve a payment of 12.50 and, once he did, charges it (CIBA, RFC 9396).

`/agent` sends the backchannel request (OpenID Connect CIBA Core 1.0 7.1) with a `charge`
authorization_details entry (RFC 9396 2); `/agent/poll` polls the token endpoint with the CIBA grant
(10.1) and, with the token, charges twice: the first is created, the second refused.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from urllib.parse import quote

from authgate_cli.local.demo_app.clients import CIBA, DemoClient
from authgate_cli.local.demo_app.expiring import Expiring
from authgate_cli.local.demo_app.pages import Answer, page, pre, pretty, step
from authgate_cli.local.demo_app.stack_api import StackApi, claims_of

# The payment the agent asks bob for (RFC 9396 2).
AGENT_PAYMENT = {"type": "charge", "actions": ["create"], "amount": 1250, "currency": "usd",
                 "description": "Order 1042", "max_charges": 1}
AGENT_PAYER = "bob"


@dataclass
class AgentFlow:
    """The agent's side of CIBA poll mode; the auth_req_ids it got are known only to this app."""

    api: StackApi
    agent: DemoClient
    _asked: Expiring[str] = field(default_factory=Expiring)

    def asks(self) -> Answer:
        """CIBA 7.1: the agent asks bob, through authgate, to approve one charge of 12.50 for Order 1042."""
        agent, issuer = self.agent, self.api.issuer
        form = {"scope": "openid charges:write", "login_hint": AGENT_PAYER, "binding_message": "Order 1042",
                "authorization_details": json.dumps([AGENT_PAYMENT], separators=(",", ":"))}
        status, body = self.api.post_token(agent, form, path="/oauth/backchannel")
        curl = (f"curl -s -u {agent.client_id}:{agent.secret} -d 'scope=openid charges:write' -d login_hint="
                f"{AGENT_PAYER} \\\n  -d binding_message='Order 1042' \\\n  --data-urlencode 'authorization_details="
                f"{form['authorization_details']}' \\\n  {issuer}/oauth/backchannel")
        steps = [step(f"1. The agent asks: HTTP {status}", pre(curl) + pre(pretty(body)))]
        auth_req_id = body.get("auth_req_id") if isinstance(body, dict) else None
        if status != 200 or not isinstance(auth_req_id, str):
            return page(issuer, 200, "The agent's request was refused", "".join(steps))
        handle = self._asked.put(auth_req_id)
        steps.append(step(f"2. {AGENT_PAYER} approves on his own device", (
            f'<p>authgate sent {AGENT_PAYER} a single-use approval link (here: to the <a href="/outbox" '
            f'target="_blank">outbox</a>). Open it, sign in as <code>{AGENT_PAYER}</code> / <code>bob-password</code> '
            "with the one-time code of his authenticator app (the seed's TOTP key; <code>oathtool --totp -b "
            "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ</code>), and approve.</p>")))
        steps.append(step("3. Meanwhile the agent polls", (
            f'<p><a class="button" href="/agent/poll?t={quote(handle)}">Check whether {AGENT_PAYER} approved</a> '
            '<span class="fine">POST /oauth/token with the CIBA grant, at most every 5 seconds</span></p>')))
        return page(issuer, 200, "An agent asks to pay 12.50", "".join(steps))

    def polls(self, handle: str) -> Answer:
        """CIBA 10.1: the agent polls; with the token it charges 12.50, then tries once more (RFC 9396)."""
        issuer = self.api.issuer
        auth_req_id = self._asked.get(handle)
        if auth_req_id is None:
            return page(issuer, 400, "No request to poll", '<p>This demo app holds no such request. '
                                                           '<a href="/agent">Start again</a>.</p>')
        status, body = self.api.post_token(self.agent, {"grant_type": CIBA, "auth_req_id": auth_req_id})
        steps = [step(f"The agent polls: HTTP {status}", pre(pretty(body)))]
        access = body.get("access_token") if isinstance(body, dict) else None
        if status != 200 or not isinstance(access, str):
            pending = isinstance(body, dict) and body.get("error") in ("authorization_pending", "slow_down")
            again = (f'<p><a class="button" href="/agent/poll?t={quote(handle)}">Check again</a></p>' if pending
                     else '<p><a href="/agent">Start again</a></p>')
            return page(issuer, 200, "Not approved yet" if pending else "The request ended", "".join(steps) + again)
        self._asked.pop(handle)
        steps.append(step("The access token's claims: the approved payment", pre(pretty(claims_of(access)))))
        for n, title in ((1, "The agent charges 12.50"), (2, "The agent tries to charge 12.50 again")):
            charge = {"amount": 1250, "currency": "usd", "description": "Order 1042"}
            charged, answer = self.api.post_charge(access, charge, f"demo-agent-{handle}-{n}")
            steps.append(step(f"{title}: HTTP {charged}", pre(pretty(answer))))
        return page(issuer, 200, "The agent paid 12.50, once", "".join(steps) + '<p><a href="/">The demo app</a></p>')
