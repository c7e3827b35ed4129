"""GET /.well-known/jwks.json, and PyJWT's PyJWKClient (an outside validator) verifying issued
tokens for every signer backend and algorithm, over real HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
import pytest

from authgate.clock import ManualClock
from tests.bearer_requests import event, seed_client
from tests.demo import AUDIENCE, ISSUER


def configure(monkeypatch: pytest.MonkeyPatch, backend: str, alg: str) -> None:
    from authgate import caches

    monkeypatch.setenv("AUTHGATE_SIGNING_BACKEND", backend)
    monkeypatch.setenv("AUTHGATE_SIGNING_ALG", alg)
    caches.reset()


@pytest.fixture
def jwks_url(aws: None, invoke: Any) -> Iterator[str]:
    """The jwks function served over HTTP on a loopback port."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            result = invoke("jwks", event("GET", self.path))
            body = result["body"].encode()
            self.send_response(result["statusCode"])
            for name, values in result["multiValueHeaders"].items():
                for value in values:
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/.well-known/jwks.json"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("backend", ["local", "kms"])
@pytest.mark.parametrize("alg", ["RS256", "ES256"])
def test_pyjwkclient_verifies_issued_tokens(jwks_url: str, monkeypatch: pytest.MonkeyPatch,
                                           backend: str, alg: str) -> None:
    from authgate.tokens.access_token import issue_access_token
    from authgate.tokens.guard import verify_access_token
    from authgate.tokens.rotation import ensure_keys

    configure(monkeypatch, backend, alg)
    ensure_keys()
    seed_client()  # the token's client must exist for verify_access_token
    issued = issue_access_token(issuer=ISSUER, subject="demo-service", client_id="demo-service",
                                tenant="demo", scope="charges:read")
    signing_key = jwt.PyJWKClient(jwks_url, cache_jwk_set=False).get_signing_key_from_jwt(issued.token)
    claims = jwt.decode(issued.token, signing_key.key, algorithms=[alg], audience=AUDIENCE, issuer=ISSUER,
                        options={"require": ["exp", "iat", "iss", "aud", "sub", "jti"]})
    assert claims["jti"] == issued.jti and claims["client_id"] == "demo-service"
    assert jwt.get_unverified_header(issued.token) == {"typ": "at+jwt", "alg": alg, "kid": signing_key.key_id}
    if alg == "ES256":  # JWS r || s, not DER
        assert len(jwt.utils.base64url_decode(issued.token.split(".")[2])) == 64
    assert verify_access_token(issued.token, issuer=ISSUER).jti == issued.jti


def test_jwks_response_publishes_next_current_previous_with_public_members_only(
        aws: None, invoke: Any, clock: ManualClock) -> None:
    from authgate.stores.signing_keys import KeyStore
    from authgate.tokens.rotation import ensure_keys, rotate

    ensure_keys()
    clock.advance(420)
    rotate()
    result = invoke("jwks", event("GET", "/.well-known/jwks.json"))
    assert result["statusCode"] == 200
    assert {k: v for k, v in result["multiValueHeaders"].items() if k != "x-request-id"} == {
        "Content-Type": ["application/json"], "Cache-Control": ["public, max-age=300"],
        # Cacheable and CORS-enabled: a shared cache must key it by Origin (authgate.http.cors).
        "Vary": ["Origin"]}
    keys = json.loads(result["body"])["keys"]
    states = {k.kid: k.state for k in KeyStore().all()}
    assert [states[k["kid"]] for k in keys] == ["current", "next", "previous"]
    for key in keys:
        assert set(key) == {"kty", "kid", "alg", "use", "n", "e"} and key["use"] == "sig" and key["alg"] == "RS256"


def test_jwks_other_method_is_405(aws: None, invoke: Any) -> None:
    result = invoke("jwks", event("POST", "/.well-known/jwks.json"))
    assert result["statusCode"] == 405 and result["multiValueHeaders"]["Allow"] == ["GET, OPTIONS"]


def test_jwks_path_imports_neither_jwt_nor_cryptography() -> None:
    import subprocess

    code = ("import sys, authgate.tokens.jwk_set, authgate.stores.signing_keys; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'jwt', 'cryptography'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
