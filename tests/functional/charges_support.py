"""Fixtures and event builders for the charges tests: the demo seed, real tokens, REST v1 events.

Nothing is mocked: tokens are signed by the real key store on moto, handlers run in-process.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

ISSUER = "http://127.0.0.1:3000"
WRITE = "charges:read charges:write"


class Demo:
    """The demo stack: seeded tables, a current signing key, and helpers to call the charges function."""

    def __init__(self) -> None:
        self._tokens: dict[tuple[str, str], str] = {}

    def token(self, client: str = "demo-service", scope: str = WRITE) -> str:
        from authgate.stores.clients import ClientStore
        from authgate.tokens.issue import issue_access_token

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


@pytest.fixture
def demo(aws: None) -> Iterator[Demo]:
    from authgate.stores import clients, invoices, tenants
    from authgate.tokens.keys import ensure_keys
    from authgate_cli.local.seed import DEMO_SEED, read_seed

    # The demo seed minus its users: their scrypt hashes cost a second per test, and the
    # charges routes never read users.
    sections = read_seed(DEMO_SEED)
    for store in (tenants, clients, invoices):
        store.seed(sections[store.__name__.rsplit(".", 1)[1]])
    ensure_keys()
    yield Demo()


def body(result: dict[str, Any]) -> Any:
    return json.loads(result["body"]) if result.get("body") else None


def headers(result: dict[str, Any]) -> dict[str, str]:
    """Single-valued view of a proxy result's headers, names lower-cased."""
    return {k.lower(): v[-1] for k, v in (result.get("multiValueHeaders") or {}).items()}


def count_charges(tenant: str = "demo") -> int:
    from authgate.stores.charges import ChargeStore

    return len(ChargeStore().page(tenant, 1000)[0])
