"""The demo app `authgate serve` runs on the demo clients' redirect URIs (http://127.0.0.1:8765).

A newcomer's first authorization-code flow needs a client to come back to. This is that
client, for every seed client whose redirect URI lies under the demo app's origin:
- a confidential client (demo-web, demo-partner): `/login?client=ID` starts the flow with
  state and a PKCE pair (RFC 7636 4.1-4.2) kept in memory; its redirect URI is a page that
  checks `state` and `iss` (RFC 9207 2.4), exchanges the code at the token endpoint with the
  client's seeded secret (RFC 6749 4.1.3, client_secret_basic), calls `GET /charges` with the
  access token, and shows each step with the curl command that does the same (`code_flow`);
- a public client (demo-spa): its redirect URI serves a single-page app that does the whole
  flow in the browser (PKCE, then a cross-origin POST to the token endpoint);
- an agent (demo-agent, a confidential client allowed the CIBA grant): `/agent` offers the button
  that asks bob to approve a payment of 12.50 (OpenID Connect CIBA Core 1.0 7.1 with RFC 9396
  `charge` authorization_details; opening the page asks nothing), `/agent/poll` polls for the
  token (10.1) and, once bob approved on the page the outbox links to, charges twice: the first
  is created, the second refused (authorization_details_exceeded) (`agent`).

Local only: it holds the demo secrets from the seed and shows the tokens it gets. Its requests
are logged like the emulator's, one JSON line each, without the query string (codes travel there).
The modules: `app` (the ASGI application and its routes), `clients` (which seed clients it plays),
`code_flow`, `agent`, `outbox_page`, `stack_api` (its calls to the stack), `pages` (the HTML
around every answer) and `expiring` (what it holds in memory, for ten minutes).
"""

from __future__ import annotations

from authgate_cli.local.demo_app.agent import AGENT_PAYER
from authgate_cli.local.demo_app.app import DemoApp
from authgate_cli.local.demo_app.clients import demo_agent, demo_clients

__all__ = ["AGENT_PAYER", "DemoApp", "demo_agent", "demo_clients"]
