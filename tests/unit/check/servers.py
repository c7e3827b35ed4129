"""Real HTTP test servers for `authgate check`: a clean one, and the same with one defect planted.

`ContractServer` looks like an authgate deployment from the outside (metadata, JWKS, token
endpoint, a bearer- and API-key-protected /charges with idempotency and a rate limit, problem
pages, problem+json errors with request ids). `PetsServer` is an API that is not authgate at all,
described by tests/unit/check/pets-openapi.yaml. Each binds a free loopback port (several test
runs share the machine) and serves from a thread until stopped.

`defect` names one way to break the error contract (see DEFECTS in test_planted_defects.py);
None serves the contract as documented, so the checker must find nothing.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

CLIENT_ID = "test-client"
CLIENT_SECRET = "test-client-secret-5f1e"  # distinctive: tests look for it in every output
API_KEY = "test-api-key-9c2d"
PETS_TOKEN = "pets-token-7a3b"
SCOPES = frozenset({"charges:read", "charges:write"})
KID = "test-key-1"
RATE_LIMIT = 20
# The look-alike's strong-authentication threshold (RFC 9470): a user's charge of at least this needs acr mfa.
SCA_THRESHOLD = 10000
_SANE_ID = re.compile(r"^[A-Za-z0-9._:@/+=-]{1,128}$")
TITLES = {400: "Invalid request", 401: "Authentication required", 403: "Forbidden", 404: "Not found",
          405: "Method not allowed", 409: "Conflict", 415: "Unsupported media type", 422: "Validation failed",
          429: "Too many requests", 500: "Internal error", 502: "Bad gateway", 503: "Service unavailable"}


@lru_cache(maxsize=1)
def signing_key() -> Any:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def user_token(base_url: str, acr: str = "password") -> str:
    """An access token of a user's grant as the look-alike's authorization server would sign it (RFC 9068 2.2.1)."""
    now = int(time.time())
    claims = {"iss": base_url, "sub": "alice", "aud": f"{base_url}/charges", "client_id": CLIENT_ID,
              "scope": "charges:read charges:write", "iat": now, "exp": now + 900, "jti": uuid.uuid4().hex,
              "acr": acr, "auth_time": now}
    return jwt.encode(claims, signing_key(), algorithm="RS256", headers={"kid": KID, "typ": "at+jwt"})


def public_jwk() -> dict[str, Any]:
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(signing_key().public_key()))
    return {**jwk, "kid": KID, "alg": "RS256", "use": "sig"}


@dataclass
class Reply:
    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""


@dataclass(frozen=True)
class Incoming:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]  # lower-case names
    body: bytes

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def _any(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        parts = urlsplit(self.path)
        incoming = Incoming(self.command, unquote(parts.path), dict(parse_qsl(parts.query)),
                            {k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length))
        reply = self.server.app.handle(incoming)
        self.send_response(reply.status)
        for name, value in reply.headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(reply.body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _any

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, app: _App) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.app = app

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (the checker's timeout) is expected; anything else is a test bug."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _App:
    """Shared by both servers: request ids and problem+json as the contract says."""

    defect: str | None = None
    base_url: str = ""

    def handle(self, req: Incoming) -> Reply:
        raise NotImplementedError

    def request_id(self, req: Incoming) -> str:
        sent = req.header("x-request-id")
        if sent and _SANE_ID.match(sent) and self.defect != "request-id-not-echoed":
            return sent
        return str(uuid.uuid4())

    def problem(self, req: Incoming, status: int, code: str, detail: str,
                headers: list[tuple[str, str]] | None = None, *, request_id: str | None = None) -> Reply:
        rid = request_id or self.request_id(req)
        d = self.defect
        body: dict[str, Any] = {
            "type": f"/problems/{code}" if d == "relative-problem-type" else f"{self.base_url}/problems/{code}",
            "title": TITLES.get(status, "Error"), "status": (422 if status == 400 else 400)
            if d == "status-mismatch" else status,
            "detail": detail, "instance": req.path, "code": code,
            "traceId": f"trace-{rid}" if d == "trace-id-mismatch" else rid}
        if d == "missing-code":
            del body["code"]
        out = [("Content-Type", "application/json" if d == "problem-as-json" else "application/problem+json")]
        if d == "no-content-type":
            out = []
        if d != "no-request-id":
            out.append(("x-request-id", rid))
        return Reply(status, out + list(headers or []), json.dumps(body).encode())

    def method_not_allowed(self, req: Incoming, allow: str, *, oauth: bool = False) -> Reply:
        if self.defect == "allow-lists-refused":
            allow = f"{allow}, {req.method}"
        headers = [] if self.defect == "405-no-allow" else [("Allow", allow)]
        if oauth:
            return self.oauth_error(req, 405, "invalid_request", f"{req.method} is not allowed here.", headers)
        return self.problem(req, 405, "method_not_allowed", f"{req.method} is not allowed on {req.path}.", headers)

    def oauth_error(self, req: Incoming, status: int, error: str, description: str,
                    headers: list[tuple[str, str]] | None = None) -> Reply:
        if self.defect == "oauth-error-as-problem":
            return self.problem(req, status, error, description, headers)
        rid = self.request_id(req)
        body = {"error": error, "error_description": description, "error_uri": f"{self.base_url}/problems/{error}"}
        out = [("Content-Type", "application/json"), ("Cache-Control", "no-store"), ("Pragma", "no-cache"),
               ("x-request-id", rid)]
        return Reply(status, out + list(headers or []), json.dumps(body).encode())

    def problem_page(self, req: Incoming, known: frozenset[str]) -> Reply:
        code = req.path.rsplit("/", 1)[-1]
        if req.method != "GET":
            return self.method_not_allowed(req, "GET")
        if code not in known or self.defect == "unresolvable-problem-type":
            return self.problem(req, 404, "not_found", "No problem type of that name is documented.")
        page = f"<!doctype html><html><head><title>{code}</title></head><body><h1>{code}</h1></body></html>"
        return Reply(200, [("Content-Type", "text/html; charset=utf-8")], page.encode())


class ContractServer(_App):
    """An authgate look-alike: clean, or with one planted `defect`."""

    CODES = frozenset({"invalid_request", "invalid_client", "unsupported_grant_type", "invalid_scope",
                       "invalid_token", "unauthenticated", "insufficient_scope", "invalid_api_key", "not_found",
                       "method_not_allowed", "malformed_json", "unsupported_media_type", "validation_failed",
                       "idempotency_key_reused", "rate_limited", "internal_error", "bad_gateway",
                       "service_unavailable", "insufficient_user_authentication"})

    def __init__(self, defect: str | None = None) -> None:
        self.defect = defect
        self.lock = threading.Lock()
        self.charges: dict[str, dict[str, Any]] = {}
        self.idempotency: dict[str, tuple[str, Reply]] = {}
        self.limited_requests = 0

    # -- routing
    def handle(self, req: Incoming) -> Reply:
        path = req.path
        if path == "/.well-known/oauth-authorization-server":
            return self.metadata(req) if req.method == "GET" else self.method_not_allowed(req, "GET")
        if path == "/.well-known/jwks.json":
            return self.jwks(req) if req.method == "GET" else self.method_not_allowed(req, "GET")
        if path == "/oauth/token":
            return self.token(req) if req.method == "POST" else self.method_not_allowed(req, "POST", oauth=True)
        if path in ("/oauth/revoke", "/oauth/introspect"):
            if req.method != "POST":
                return self.method_not_allowed(req, "POST", oauth=True)
            return Reply(200, [("Content-Type", "application/json")], b'{"active": false}')
        if path.startswith("/problems/"):
            return self.problem_page(req, self.CODES)
        if path == "/charges":
            return self.charges_route(req)
        return self.unknown(req)

    def unknown(self, req: Incoming) -> Reply:
        d = self.defect
        if d == "html-502":
            page = b"<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>"
            return Reply(502, [("Content-Type", "text/html"), ("x-request-id", self.request_id(req))], page)
        if d == "503-no-retry-after":
            return self.problem(req, 503, "service_unavailable", "Storage is throttled.")
        if d == "slow-unknown-route":
            time.sleep(3)
        if d == "html-for-browsers" and "text/html" in (req.header("accept") or ""):
            return Reply(404, [("Content-Type", "text/html"), ("x-request-id", self.request_id(req))],
                         b"<!doctype html><html><head><title>Not found</title></head></html>")
        return self.problem(req, 404, "not_found", f"No route for {req.method} {req.path}.")

    # -- discovery
    def metadata(self, req: Incoming) -> Reply:
        if self.defect == "metadata-redirect":
            return Reply(302, [("Location", f"{self.base_url}/elsewhere")])
        base = self.base_url
        issuer = base.replace("127.0.0.1", "localhost") if self.defect == "issuer-mismatch" else base
        doc = {"issuer": issuer, "token_endpoint": "/oauth/token" if self.defect == "relative-endpoint"
               else f"{base}/oauth/token", "jwks_uri": f"{base}/.well-known/jwks.json",
               "revocation_endpoint": f"{base}/oauth/revoke", "introspection_endpoint": f"{base}/oauth/introspect",
               "response_types_supported": ["code"], "grant_types_supported": ["client_credentials", *{
                   "device-grant-without-endpoint": ["urn:ietf:params:oauth:grant-type:device_code"],
                   "advertised-grant-unserved": ["urn:ietf:params:oauth:grant-type:jwt-bearer"],
               }.get(self.defect or "", [])],
               "client_id_metadata_document_supported": "yes" if self.defect == "cimd-flag-not-boolean" else False}
        return Reply(200, [("Content-Type", "application/json")], json.dumps(doc).encode())

    def jwks(self, req: Incoming) -> Reply:
        key = public_jwk()
        keys = [key]
        if self.defect == "private-jwks":
            numbers = signing_key().private_numbers()
            keys = [{**key, "d": base64.urlsafe_b64encode(numbers.d.to_bytes(256, "big")).rstrip(b"=").decode()}]
        if self.defect == "duplicate-kid":
            keys = [key, dict(key)]
        return Reply(200, [("Content-Type", "application/json")], json.dumps({"keys": keys}).encode())

    # -- token endpoint (RFC 6749 5.1, 5.2)
    def token(self, req: Incoming) -> Reply:
        if (req.header("content-type") or "").split(";")[0].strip() != "application/x-www-form-urlencoded":
            return self.oauth_error(req, 400, "invalid_request", "The body must be form-encoded.")
        form = dict(parse_qsl(req.body.decode("utf-8", "replace"), keep_blank_values=True))
        if not form.get("grant_type"):
            if self.defect == "success-false-200":
                body = {"success": False, "errors": [{"field": "grant_type", "message": "Required."}]}
                return Reply(200, [("Content-Type", "application/json"), ("x-request-id", self.request_id(req))],
                             json.dumps(body).encode())
            return self.oauth_error(req, 400, "invalid_request", "grant_type is required.")
        if form["grant_type"] != "client_credentials":
            return self.oauth_error(req, 401 if self.defect == "oauth-status-wrong" else 400,
                                    "unsupported_grant_type", "The grant type is not supported.")
        expected = "Basic " + base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
        if req.header("authorization") != expected:
            if self.defect == "invalid-client-400":
                return self.oauth_error(req, 400, "invalid_client", "Client authentication failed.")
            return self.oauth_error(req, 401, "invalid_client", "Client authentication failed.",
                                    [("WWW-Authenticate", 'Basic realm="oauth"')])
        scope = form.get("scope", " ".join(sorted(SCOPES)))
        if not set(scope.split()) <= SCOPES:
            return self.oauth_error(req, 400, "invalid_scope", "Unknown scope.")
        now = int(time.time())
        claims = {"iss": self.base_url, "sub": CLIENT_ID, "aud": f"{self.base_url}/charges", "client_id": CLIENT_ID,
                  "scope": scope, "iat": now, "exp": now + 900, "jti": uuid.uuid4().hex}
        typ = "JWT" if self.defect == "token-wrong-typ" else "at+jwt"
        token = jwt.encode(claims, signing_key(), algorithm="RS256", headers={"kid": KID, "typ": typ})
        headers = [("Content-Type", "application/json"), ("Pragma", "no-cache")]
        if self.defect != "token-cacheable":
            headers.append(("Cache-Control", "no-store"))
        body = {"access_token": token, "token_type": "Bearer", "expires_in": 900, "scope": scope}
        return Reply(200, headers, json.dumps(body).encode())

    # -- the protected resource
    def charges_route(self, req: Incoming) -> Reply:
        if req.header("x-api-key") != API_KEY:
            # As a gateway would: its own request id, not the client's.
            rid = str(uuid.uuid4())
            if self.defect == "gateway-html-403":
                return Reply(403, [("Content-Type", "text/html"), ("x-request-id", rid)],
                             b"<html><head><title>403 Forbidden</title></head><body>Forbidden</body></html>")
            return self.problem(req, 403, "invalid_api_key", "This route requires a valid x-api-key header.",
                                request_id=rid)
        if req.method not in ("GET", "POST"):
            return self.method_not_allowed(req, "GET, POST")
        claims = self.bearer(req, "charges:write" if req.method == "POST" else "charges:read")
        if isinstance(claims, Reply):
            return claims
        with self.lock:
            self.limited_requests += 1
            used = self.limited_requests
        fields = [("RateLimit-Policy", f'"default";q={RATE_LIMIT};w=60'),
                  ("RateLimit", f'"default";r={max(0, RATE_LIMIT - used)};t=60')]
        if self.defect == "no-ratelimit-fields":
            fields = []
        if used > RATE_LIMIT:
            retry = {"429-no-retry-after": [], "retry-after-garbage": [("Retry-After", "soon")]}.get(
                self.defect or "", [("Retry-After", "60")])
            return self.problem(req, 429, "rate_limited", "Too many requests.", retry + fields)
        refused = self.step_up(req, claims) if req.method == "POST" else None
        if refused is not None:
            return refused
        reply = self.create(req) if req.method == "POST" else self.list_charges(req)
        reply.headers.extend(fields)
        return reply

    def bearer(self, req: Incoming, scope: str) -> dict[str, Any] | Reply:
        """RFC 6750 3.1 challenges; RFC 9068 validation."""
        def challenge(status: int, code: str, error: str | None, detail: str, extra: str = "") -> Reply:
            value = 'Bearer realm="api"' + (f', error="{error}"' if error else "") + extra
            if self.defect == "500-on-bad-bearer" and status == 400:
                return self.problem(req, 500, "internal_error", "Unexpected failure.")
            headers = [] if (self.defect == "401-no-challenge" and status == 401) else [("WWW-Authenticate", value)]
            return self.problem(req, status, code, detail, headers)

        value = req.header("authorization")
        if not value or not value.lower().startswith("bearer"):
            return challenge(401, "unauthenticated", None, "Send Authorization: Bearer <token>.")
        parts = value.split()
        if len(parts) != 2:
            return challenge(400, "invalid_request", "invalid_request", "Bearer needs exactly one token.")
        bad_token_error = "invalid_request" if self.defect == "bearer-wrong-error" else "invalid_token"
        try:
            header = jwt.get_unverified_header(parts[1])
            claims = jwt.decode(parts[1], signing_key().public_key(), algorithms=["RS256"],
                                audience=f"{self.base_url}/charges", issuer=self.base_url,
                                options={"verify_signature": self.defect != "accepts-foreign-token"})
        except jwt.PyJWTError as exc:
            return challenge(401, "invalid_token", bad_token_error, f"The access token is invalid: {exc}.")
        if str(header.get("typ", "")).lower() != "at+jwt":
            return challenge(401, "invalid_token", bad_token_error, "Not an access token.")
        if scope not in str(claims.get("scope", "")).split():
            if self.defect == "insufficient-scope-as-401":
                return challenge(401, "invalid_token", "invalid_token", "Token lacks scope.")
            step_up = ("" if self.defect == "step-up-without-scope" else f', scope="{scope}"') + (
                "" if self.defect == "step-up-without-metadata"
                else f', resource_metadata="{self.base_url}/.well-known/oauth-protected-resource/charges"')
            return challenge(403, "insufficient_scope", "insufficient_scope", f"Needs {scope}.", step_up)
        return claims

    def step_up(self, req: Incoming, claims: dict[str, Any]) -> Reply | None:
        """RFC 9470 3: a user's charge at or above the threshold needs acr mfa."""
        try:
            amount = json.loads(req.body).get("amount")
        except (ValueError, AttributeError):
            return None
        if "acr" not in claims or claims["acr"] == "mfa" or not isinstance(amount, int) or amount < SCA_THRESHOLD:
            return None
        if self.defect == "step-up-auth-accepted":
            return None
        params = {"step-up-auth-bad-max-age": ', acr_values="mfa", max_age="five minutes"',
                  "step-up-auth-without-params": ""}.get(self.defect or "", ', acr_values="mfa", max_age="300"')
        detail = "A second factor is required."
        value = f'Bearer realm="api", error="insufficient_user_authentication", error_description="{detail}"{params}'
        return self.problem(req, 401, "insufficient_user_authentication", detail, [("WWW-Authenticate", value)])

    def list_charges(self, req: Incoming) -> Reply:
        data = list(self.charges.values())[-1:]
        return Reply(200, [("Content-Type", "application/json")],
                     json.dumps({"object": "list", "data": data, "has_more": False}).encode())

    def create(self, req: Incoming) -> Reply:
        if (req.header("content-type") or "").split(";")[0].strip() != "application/json":
            return self.problem(req, 415, "unsupported_media_type", "Send application/json.")
        try:
            body = json.loads(req.body)
        except ValueError:
            return self.problem(req, 400, "malformed_json", "The body is not JSON.")
        if not isinstance(body, dict) or not isinstance(body.get("amount"), int):
            return self.problem(req, 422, "validation_failed", "amount must be an integer.")
        key = req.header("idempotency-key")
        fingerprint = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        with self.lock:
            if key and key in self.idempotency and self.defect != "replay-duplicates":
                stored_print, stored = self.idempotency[key]
                if stored_print != fingerprint and self.defect != "key-reuse-accepted":
                    return self.problem(req, 422, "idempotency_key_reused", "The key was used with another body.")
                return Reply(stored.status, [*stored.headers, ("Idempotent-Replayed", "true")], stored.body)
            charge_id = f"ch_{len(self.charges) + 1:04d}"
            charge = {"id": charge_id, "object": "charge", "amount": body["amount"],
                      "currency": body.get("currency"), "description": body.get("description")}
            self.charges[charge_id] = charge
            reply = Reply(201, [("Content-Type", "application/json"), ("Location", f"{self.base_url}/charges/{charge_id}")],
                          json.dumps(charge).encode())
            if key:
                self.idempotency[key] = (fingerprint, Reply(reply.status, list(reply.headers), reply.body))
        return reply


class PetsServer(_App):
    """Not authgate: a pets API with bearer auth, described by pets-openapi.yaml."""

    CODES = frozenset({"unauthenticated", "not_found", "method_not_allowed", "malformed_json",
                       "unsupported_media_type", "validation_failed"})

    def __init__(self, defect: str | None = None) -> None:
        self.defect = defect
        self.pets: dict[str, dict[str, Any]] = {"1": {"id": "1", "name": "Rex"}}

    def handle(self, req: Incoming) -> Reply:
        path = req.path
        if path.startswith("/problems/"):
            return self.problem_page(req, self.CODES)
        if path == "/health":
            if req.method != "GET":
                return self.method_not_allowed(req, "GET")
            return Reply(200, [("Content-Type", "application/json")], b'{"ok": true}')
        if path == "/pets" or path.startswith("/pets/"):
            allowed = "GET, POST" if path == "/pets" else "GET"
            if req.method not in allowed.split(", "):
                return self.method_not_allowed(req, allowed)
            if req.header("authorization") != f"Bearer {PETS_TOKEN}" and self.defect != "no-auth":
                headers = [] if self.defect == "401-no-challenge" else [("WWW-Authenticate", 'Bearer realm="pets"')]
                return self.problem(req, 401, "unauthenticated", "Send a bearer token.", headers)
            if req.method == "POST":
                return self.create(req)
            if path == "/pets":
                return Reply(200, [("Content-Type", "application/json")], json.dumps(list(self.pets.values())).encode())
            pet = self.pets.get(path.rsplit("/", 1)[-1])
            if pet is None:
                return self.problem(req, 404, "not_found", "No such pet.")
            return Reply(200, [("Content-Type", "application/json")], json.dumps(pet).encode())
        return self.problem(req, 404, "not_found", f"No route for {req.method} {req.path}.")

    def create(self, req: Incoming) -> Reply:
        if (req.header("content-type") or "").split(";")[0].strip() != "application/json":
            if self.defect == "html-415":
                return Reply(415, [("Content-Type", "text/html"), ("x-request-id", self.request_id(req))],
                             b"<html><head><title>415 Unsupported Media Type</title></head></html>")
            return self.problem(req, 415, "unsupported_media_type", "Send application/json.")
        try:
            body = json.loads(req.body)
        except ValueError:
            if self.defect == "accepts-malformed":
                body = {"name": "?"}
            else:
                return self.problem(req, 400, "malformed_json", "The body is not JSON.")
        if not isinstance(body, dict) or not isinstance(body.get("name"), str):
            return self.problem(req, 422, "validation_failed", "name is required.")
        pet = {"id": str(len(self.pets) + 1), "name": body["name"]}
        self.pets[pet["id"]] = pet
        return Reply(201, [("Content-Type", "application/json")], json.dumps(pet).encode())


class DocumentServer(_App):
    """Serves one file at every path (an OpenAPI document fetched by URL)."""

    def __init__(self, body: bytes, media_type: str) -> None:
        self.body = body
        self.media_type = media_type

    def handle(self, req: Incoming) -> Reply:
        return Reply(200, [("Content-Type", self.media_type)], self.body)


@contextmanager
def serving(app: _App) -> Iterator[str]:
    """Serve `app` on a free loopback port; yields its base URL."""
    server = _Server(app)
    app.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield app.base_url
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
