"""The demo stack as the tests see it: its issuer, real tokens, REST v1 events, result parsing.

The `demo` fixture (tests/conftest.py) loads the demo seed and signing keys into moto and hands
out a Demo. Nothing is mocked: tokens are signed by the real key store, handlers run in-process.
"""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from typing import Any

# The one issuer of every test: the local stack's (the `aws` fixture and the unit tests' `issuer`
# fixture configure it; e2e tests talk to `authgate serve` on it).
ISSUER = "http://127.0.0.1:3000"
# The charges resource's audience (tokens.access_token.default_audience).
AUDIENCE = ISSUER + "/charges"
# The demo seed's clients: redirect URIs, and every confidential client's secret.
WEB_REDIRECT = "http://127.0.0.1:8765/callback"
SPA_REDIRECT = "http://127.0.0.1:8765/spa/callback"
PARTNER_REDIRECT = "http://127.0.0.1:8765/partner/callback"
SECRETS = {c: f"{c}-secret" for c in ("demo-web", "demo-partner", "demo-service", "demo-reader",
                                      "demo-legacy-a", "demo-legacy-b", "acme-service", "staging-web")}
# The demo seed's alice and bob: their user_ids, the `sub` of their tokens.
ALICE_ID = "usr_demoalice0000000000000"
BOB_ID = "usr_demobob000000000000000"
# A PKCE pair (RFC 7636 appendix B).
VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()
WRITE = "charges:read charges:write"


class Demo:
    """The demo stack: seeded tables, a current signing key, and helpers to call the charges function."""

    def __init__(self) -> None:
        self._tokens: dict[tuple[str, str], str] = {}

    def token(self, client: str = "demo-service", scope: str = WRITE) -> str:
        from authgate.stores.clients import ClientStore
        from authgate.tokens.access_token import issue_access_token

        if (client, scope) not in self._tokens:
            record = ClientStore().get(client)
            assert record is not None, client
            self._tokens[client, scope] = issue_access_token(
                issuer=ISSUER, subject=client, client_id=client, tenant=record.tenant_id, scope=scope).token
        return self._tokens[client, scope]

    def event(self, method: str, path: str = "/charges", *, body: Any = None, client: str | None = "demo-service",
              scope: str = WRITE, headers: dict[str, Any] | None = None, query: dict[str, Any] | None = None,
              raw_body: str | None = None) -> dict[str, Any]:
        """A REST proxy (payload v1) event as API Gateway sends it; header values may be lists."""
        hdrs: dict[str, list[str]] = {}
        if client is not None:
            hdrs["Authorization"] = [f"Bearer {self.token(client, scope)}"]
        if body is not None or raw_body is not None:
            hdrs["Content-Type"] = ["application/json"]
        for name, value in (headers or {}).items():
            if value is None:
                hdrs.pop(name, None)
            else:
                hdrs[name] = value if isinstance(value, list) else [value]
        resource, params = ("/charges", None)
        if path.startswith("/charges/"):
            resource, params = "/charges/{id}", {"id": path.split("/", 2)[2]}
        multi_q = {k: (v if isinstance(v, list) else [v]) for k, v in (query or {}).items()} or None
        return {
            "resource": resource, "path": path, "httpMethod": method,
            "headers": {k: v[-1] for k, v in hdrs.items()}, "multiValueHeaders": hdrs,
            "queryStringParameters": {k: v[-1] for k, v in multi_q.items()} if multi_q else None,
            "multiValueQueryStringParameters": multi_q,
            "pathParameters": params, "stageVariables": None,
            "body": raw_body if raw_body is not None else (json.dumps(body) if body is not None else None),
            "isBase64Encoded": False,
            "requestContext": {"requestId": str(uuid.uuid4()), "stage": "local", "domainName": "127.0.0.1:3000",
                               "resourcePath": resource, "httpMethod": method,
                               "identity": {"sourceIp": "127.0.0.1"}},
        }


def body(result: dict[str, Any]) -> Any:
    return json.loads(result["body"]) if result.get("body") else None


def headers(result: dict[str, Any]) -> dict[str, str]:
    """Single-valued view of a proxy result's headers, names lower-cased."""
    return {k.lower(): v[-1] for k, v in (result.get("multiValueHeaders") or {}).items()}


def count_charges(tenant: str = "demo") -> int:
    from authgate.stores.charges import ChargeStore

    return len(ChargeStore().page(tenant, 1000)[0])


def post_charge(demo: Demo, invoke: Any, token: str, charge: dict[str, Any], key: str | None = None,
                accept: str | None = None) -> dict[str, Any]:
    """POST /charges with `token` (and an Idempotency-Key, an Accept header) through the charges handler."""
    extra = {"Idempotency-Key": key} if key else {}
    if accept:
        extra["Accept"] = accept
    return invoke("charges", demo.event("POST", body=charge, client=None,
                                        headers={"Authorization": f"Bearer {token}", **extra}))
