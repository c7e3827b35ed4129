"""The ID-JAG grant (its IdP's keys cached, and fetched cold), a token exchange and a device-code poll
(docs/delegation.md).

Through the real token handler, warm, in-process against moto. The ID-JAG's IdP publishes its keys
at a JWKS URI served over real TLS on 127.0.0.1 (tests/document_server.py); the cold case clears
the warm function's key cache before each request, so it pays the fetch (on AWS add the IdP's DNS,
TCP and TLS round trips). The token exchange trades a token for a registered resource for a charges
token with the resource's own credentials. The device-code poll is a public device client's poll while the
person has not decided (RFC 8628 3.5 authorization_pending): a new device authorization each round, made
untimed, so every poll is on time. Run: `python -m bench delegation`.
"""

from __future__ import annotations

import base64
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

N = 60
MCP = "https://mcp.example.com/mcp"
ISSUER = "http://127.0.0.1:3000"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
DEVICE = "urn:ietf:params:oauth:grant-type:device_code"
PENDING_POLL = "device-code poll, pending"
# Issue 29's goals, DynamoDB calls per warm request (bench.report lists them with the other targets).
BUDGETS = {"ID-JAG grant, IdP keys cached": 2, "token exchange": 2, PENDING_POLL: 1}
ACCESS = "urn:ietf:params:oauth:token-type:access_token"


def _event(fields: dict[str, str], client_id: str, secret: str | None) -> dict[str, Any]:
    """A token request; a public client (no secret) names itself in the form."""
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Host": "127.0.0.1:3000"}
    if secret is None:
        fields = {**fields, "client_id": client_id}
    else:
        headers["Authorization"] = "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()
    return {"httpMethod": "POST", "path": "/oauth/token", "resource": "/oauth/token", "headers": headers,
            "body": urlencode(fields), "requestContext": {"requestId": "bench", "identity": {"sourceIp": "198.51.100.1"}}}


def measure(rounds: int = N) -> dict[str, dict[str, Any]]:
    """p50/p95 latency and DynamoDB calls per request of each case, `rounds` each."""
    from bench.moto_stack import moto_stack
    from tests.document_server import Route, document_server
    from tests.idp_support import TestIdp

    with tempfile.TemporaryDirectory() as tmp, document_server(Path(tmp)) as server:
        idp = TestIdp("https://idp.bench.example")
        server.routes["/keys"] = Route(idp.jwks_json(), headers={"Content-Type": "application/jwk-set+json"})
        env = {"AUTHGATE_ALLOW_LOOPBACK_OUTBOUND": "true", "SSL_CERT_FILE": str(server.ca)}
        saved = {k: os.environ.get(k) for k in env}
        try:
            with moto_stack(**env):
                return _run(idp, server.url("/keys"), rounds)
        finally:
            for k, v in saved.items():
                os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


def _run(idp: Any, jwks_uri: str, rounds: int) -> dict[str, dict[str, Any]]:
    from authgate import caches
    from authgate.identity_providers.model import IdentityProvider
    from authgate.resources.model import Resource
    from authgate.stores.clients import ClientStore
    from authgate.stores.identity_providers import IdentityProviderStore
    from authgate.stores.resources import ResourceStore
    from authgate.tokens.access_token import issue_access_token
    from authgate.tokens.rotation import ensure_keys
    from authgate_cli.local.functions import load_handler
    from authgate_cli.local.seed import load_seed
    from bench.dynamodb_calls import token_requests

    load_seed()
    ensure_keys()
    handler = load_handler("token")
    clients = ClientStore()
    agent, agent_secret = clients.create(client_id="bench-agent", tenant_id="demo", grant_types=(JWT_BEARER,))
    server, server_secret = clients.create(client_id="bench-rs", tenant_id="", grant_types=())
    assert agent_secret is not None and server_secret is not None
    ResourceStore().create(Resource(MCP, ("mcp:read", "charges:read"), introspection_client_id=server.client_id,
                                    may_delegate_to=(f"{ISSUER}/charges",)))
    IdentityProviderStore().create(IdentityProvider("demo", idp.issuer, jwks_uri=jwks_uri))
    device, _ = clients.create(client_id="bench-device", tenant_id="demo", client_type="public",
                               grant_types=(DEVICE,), scopes=("charges:read",))

    def id_jag() -> dict[str, Any]:
        assertion = idp.id_jag(audience=ISSUER, client_id=agent.client_id, resource=MCP, scope="mcp:read")
        return _event({"grant_type": JWT_BEARER, "assertion": assertion}, agent.client_id, agent_secret)

    def cold_keys() -> dict[str, Any]:
        from authgate.tokens.idp_keys import idp_key_cache

        idp_key_cache().clear()  # what a new container has: no key set yet
        return id_jag()

    def token_exchange() -> dict[str, Any]:
        subject = issue_access_token(issuer=ISSUER, subject="alice", client_id="demo-web", tenant="demo",
                                     scope="mcp:read charges:read", audience=MCP).token
        return _event({"grant_type": EXCHANGE, "subject_token": subject, "subject_token_type": ACCESS,
                       "resource": f"{ISSUER}/charges"}, server.client_id, server_secret)

    def pending_poll() -> dict[str, Any]:
        from authgate.stores.device_codes import DeviceCodeStore

        device_code, _, _ = DeviceCodeStore().create(client_id=device.client_id, tenant_id="demo",
                                                     scope="charges:read", resource=None, public_client=True)
        return _event({"grant_type": DEVICE, "device_code": device_code}, device.client_id, None)

    cases: dict[str, Callable[[], dict[str, Any]]] = {
        "ID-JAG grant, IdP keys cached": id_jag, "ID-JAG grant, IdP keys fetched": cold_keys,
        "token exchange": token_exchange, PENDING_POLL: pending_poll}
    statuses = {PENDING_POLL: 400}
    caches.reset()
    for name, prepare in cases.items():  # warm: modules, signing key, TLS context, the 60 s caches
        assert handler(prepare(), None)["statusCode"] == statuses.get(name, 200)
    return token_requests(handler, cases, rounds, statuses)


def main() -> int:
    figures = measure()
    print(f"{'token request':34} {'p50':>9} {'p95':>9}  DynamoDB calls (moto, in-process, N={N}) against the goal")
    for name, f in figures.items():
        ops = ", ".join(f"{k} x{v}" for k, v in f["dynamodb_operations"].items())
        goal = BUDGETS.get(name)
        verdict = "" if goal is None else f"  goal <= {goal}: {'met' if f['dynamodb_calls'] <= goal else 'NOT met'}"
        print(f"{name:34} {f['p50_ms']:7.2f}ms {f['p95_ms']:7.2f}ms  {f['dynamodb_calls']} ({ops}){verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
