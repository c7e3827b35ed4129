"""A token request by a Client ID Metadata Document client beside an ordinary public client (docs/agents.md).

The authorization_code exchange through the real token handler, warm, in-process against moto,
three ways: an administrator's public client (demo-spa); a metadata-document client whose record
in ClientsTable is fresh (the cache: the same BatchGetItem as any client); and the same client
with a stale record, so the request fetches the document again (per-host limit UpdateItem,
TLS fetch, validation, PutItem). The document is served over real TLS on 127.0.0.1
(tests/document_server.py), so the fetch figure is a lower bound: on AWS it adds the client
host's DNS, TCP and TLS round trips (tens to hundreds of milliseconds), which is why the cache
lifetime (5.2) matters. Run: `python -m bench client_metadata`.
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

N = 60
REDIRECT = "http://127.0.0.1:9/callback"


def _event(fields: dict[str, str]) -> dict[str, Any]:
    return {"httpMethod": "POST", "path": "/oauth/token", "resource": "/oauth/token",
            "headers": {"Content-Type": "application/x-www-form-urlencoded"}, "body": urlencode(fields),
            "requestContext": {"requestId": "bench", "identity": {"sourceIp": "198.51.100.1"}}}


def _pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(32)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def measure(rounds: int = N) -> dict[str, dict[str, Any]]:
    """p50 latency and DynamoDB calls per request of the three cases (a dict per case), `rounds` each."""
    from bench.moto_stack import moto_stack
    from tests.document_server import document_server

    with tempfile.TemporaryDirectory() as tmp, document_server(Path(tmp)) as server:
        client_id = server.document("/agent.json")
        env = {"AUTHGATE_CLIENT_METADATA_DOCUMENTS": "true", "AUTHGATE_ALLOW_LOOPBACK_OUTBOUND": "true",
               "SSL_CERT_FILE": str(server.ca),
               # Every fetched round is one refresh from the same host: lift the host's and the
               # deployment's fetch budgets (30 and 600 a minute).
               "AUTHGATE_CLIENT_METADATA_FETCH_LIMIT": "10000",
               "AUTHGATE_CLIENT_METADATA_DEPLOYMENT_LIMIT": "100000"}
        saved = {k: os.environ.get(k) for k in env}
        try:
            with moto_stack(**env):
                return _run(client_id, rounds)
        finally:
            for k, v in saved.items():
                os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


def _run(client_id: str, rounds: int) -> dict[str, dict[str, Any]]:
    from authgate.oauth.clients.metadata_document.resolver import MetadataClients
    from authgate.stores.clients import ClientStore
    from authgate.stores.codes import CodeStore
    from authgate.tokens.rotation import ensure_keys
    from authgate_cli.local.functions import load_handler
    from authgate_cli.local.seed import load_seed
    from bench.dynamodb_calls import token_requests
    from bench.token_endpoint import signed_in

    load_seed()
    ensure_keys()
    handler = load_handler("token")
    store = ClientStore()
    MetadataClients().fetch(client_id)  # the record exists (fresh)

    def exchange(cid: str, redirect: str) -> Callable[[], dict[str, Any]]:
        def prepare() -> dict[str, Any]:
            verifier, challenge = _pkce()
            code = CodeStore().create(client_id=cid, tenant_id="demo", redirect_uri=redirect,
                                      code_challenge=challenge, code_challenge_method="S256",
                                      scope="charges:read", subject="alice", authentication=signed_in())
            return _event({"grant_type": "authorization_code", "code": code, "code_verifier": verifier,
                           "redirect_uri": redirect, "client_id": cid})
        return prepare

    def stale(prepare: Callable[[], dict[str, Any]]) -> Callable[[], dict[str, Any]]:
        def again() -> dict[str, Any]:
            cached = store.get(client_id)
            assert cached is not None
            store.save(cached._replace(refresh_at=1))
            return prepare()
        return again

    cases = {"ordinary public client (demo-spa)": exchange("demo-spa", "http://127.0.0.1:8765/spa/callback"),
             "metadata document, cached": exchange(client_id, REDIRECT),
             "metadata document, fetched": stale(exchange(client_id, REDIRECT))}
    handler(cases["metadata document, cached"](), None)  # warm: modules, signing key, TLS context
    return token_requests(handler, cases, rounds)


def main() -> int:
    figures = measure()
    print(f"{'token request (authorization_code)':40} {'p50':>9} {'p95':>9}  DynamoDB calls (moto, in-process, N={N})")
    for name, f in figures.items():
        ops = ", ".join(f"{k} x{v}" for k, v in f["dynamodb_operations"].items())
        print(f"{name:40} {f['p50_ms']:7.2f}ms {f['p95_ms']:7.2f}ms  {f['dynamodb_calls']} ({ops})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
