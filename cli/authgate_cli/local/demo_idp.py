"""Demo Corp SSO: a small OpenID Provider the local stack runs so a newcomer sees "Sign in with Demo Corp SSO" work.

Development only, never shipped (authgate_cli is not in the Lambda layer; scripts/check_artifacts.py). It shows the
flow; it proves nothing: the relying party's interop proof is panva's oidc-provider in the tests. `authgate serve`
starts it on its own loopback port beside the demo app, and the demo seed gives tenant `demo` an identity provider
record pointing at it (domain democorp.example). What it does, and no more (OpenID Connect Core 1.0 3.1):

- discovery (Discovery 1.0 4) and its JWKS: one ES256 key, made when it starts;
- the authorization endpoint: the code flow with PKCE S256 required, for its one client and that client's one
  redirect URI (authgate's callback); its sign-in page lists the demo people -- choose one, no password -- and
  answers with code, state and `iss` (RFC 9207);
- the token endpoint (client_secret_basic or _post): each code once, within 60 s, for the redirect URI and PKCE
  verifier it was issued with; an ID token with the person's email, name, `acr`/`amr`, `auth_time`, `sid`, nonce;
- UserInfo for its access tokens, and an end-session endpoint that returns to authgate.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import json
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple
from urllib.parse import parse_qsl, unquote_plus, urlencode

from authgate_cli.local.asgi import Receive, Scope, Send, lifespan

CLIENT_ID = "authgate-local"
CLIENT_SECRET = "democorp-sso-secret"
CODE_SECONDS = 60
TOKEN_SECONDS = 300
MAX_BODY = 16 * 1024
Answer = tuple[int, list[tuple[str, str]], bytes]


class DemoPerson(NamedTuple):
    sub: str
    email: str
    name: str
    email_verified: bool
    acr: str
    amr: tuple[str, ...]
    note: str


PEOPLE = (
    DemoPerson("democorp-carol", "carol@democorp.example", "Carol Demo", True, "urn:democorp:pwd", ("pwd",),
               "email verified"),
    DemoPerson("democorp-dave", "dave@democorp.example", "Dave Demo", False, "urn:democorp:pwd", ("pwd",),
               "email not verified: never linked to an account by its email"),
    DemoPerson("democorp-erin", "erin@democorp.example", "Erin Demo", True, "urn:democorp:mfa", ("pwd", "otp"),
               "signed in with a second factor (acr urn:democorp:mfa)"),
)


class _Grant(NamedTuple):
    person: DemoPerson
    redirect_uri: str
    nonce: str
    challenge: str
    expires: float


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


@dataclass
class DemoIdp:
    """The provider at `issuer` (http://127.0.0.1:PORT), for authgate at `authgate` (its issuer)."""

    issuer: str
    authgate: str
    _key: Any = field(init=False, repr=False)
    _kid: str = field(init=False)
    _codes: dict[str, _Grant] = field(default_factory=dict, init=False)
    _tokens: dict[str, tuple[DemoPerson, float]] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        from cryptography.hazmat.primitives.asymmetric import ec

        self._key = ec.generate_private_key(ec.SECP256R1())
        self._kid = "democorp-" + secrets.token_hex(4)

    @property
    def redirect_uri(self) -> str:
        from authgate.identity_providers.model import redirect_uri

        return redirect_uri(self.authgate)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > MAX_BODY or not message.get("more_body"):
                break
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        form = dict(parse_qsl(body.decode("utf-8", "replace"))) if len(body) <= MAX_BODY else {}
        status, fields, content = self.answer(scope["method"], scope["path"], query, form, headers)
        await send({"type": "http.response.start", "status": status,
                    "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in fields]
                    + [(b"content-length", str(len(content)).encode("ascii"))]})
        await send({"type": "http.response.body", "body": content})

    def answer(self, method: str, path: str, query: Mapping[str, str], form: Mapping[str, str],
               headers: Mapping[str, str]) -> Answer:
        """The answer to one request."""
        if path == "/.well-known/openid-configuration" and method == "GET":
            return _json(200, self.configuration())
        if path == "/jwks" and method == "GET":
            return _json(200, {"keys": [self._public_jwk()]})
        if path == "/authorize" and method in ("GET", "POST"):
            return self._authorize(query if method == "GET" else form, chosen=form.get("person") if method == "POST"
                                   else None)
        if path == "/token" and method == "POST":
            return self._token(form, headers.get("authorization", ""))
        if path == "/userinfo" and method in ("GET", "POST"):
            return self._userinfo(headers.get("authorization", ""))
        if path == "/logout" and method == "GET":
            return self._logout(query)
        return _page(404, "Not found", "<p>Demo Corp SSO has nothing here.</p>")

    def configuration(self) -> dict[str, Any]:
        """Its discovery document (Discovery 1.0 3)."""
        return {
            "issuer": self.issuer, "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token", "jwks_uri": f"{self.issuer}/jwks",
            "userinfo_endpoint": f"{self.issuer}/userinfo", "end_session_endpoint": f"{self.issuer}/logout",
            "response_types_supported": ["code"], "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["ES256"], "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "scopes_supported": ["openid", "email", "profile"], "claims_supported": [
                "sub", "email", "email_verified", "name", "acr", "amr", "auth_time", "sid"],
            "authorization_response_iss_parameter_supported": True,
        }

    def _public_jwk(self) -> dict[str, str]:
        numbers = self._key.public_key().public_numbers()
        return {"kty": "EC", "crv": "P-256", "kid": self._kid, "alg": "ES256", "use": "sig",
                "x": _b64(numbers.x.to_bytes(32, "big")), "y": _b64(numbers.y.to_bytes(32, "big"))}

    def _authorize(self, params: Mapping[str, str], chosen: str | None) -> Answer:
        if params.get("client_id") != CLIENT_ID or params.get("redirect_uri") != self.redirect_uri:
            return _page(400, "Unknown client", "<p>Demo Corp SSO knows one client, authgate's, and its one "
                                                "redirect URI.</p>")
        problem = ""
        if params.get("response_type") != "code":
            problem = "unsupported_response_type"
        elif "openid" not in params.get("scope", "").split() or not params.get("nonce"):
            problem = "invalid_request"
        elif params.get("code_challenge_method") != "S256" or len(params.get("code_challenge", "")) != 43:
            problem = "invalid_request"  # PKCE S256 is required
        if problem:
            return self._back({"error": problem, "state": params.get("state", "")})
        person = next((p for p in PEOPLE if p.sub == chosen), None)
        if person is None:
            return self._sign_in_page(params)
        code = secrets.token_urlsafe(32)
        self._codes[code] = _Grant(person, params["redirect_uri"], params["nonce"], params["code_challenge"],
                                   time.time() + CODE_SECONDS)
        return self._back({"code": code, "state": params.get("state", "")})

    def _back(self, answer: dict[str, str]) -> Answer:
        params = {k: v for k, v in answer.items() if v} | {"iss": self.issuer}
        return 302, [("Location", f"{self.redirect_uri}?{urlencode(params)}"), ("Cache-Control", "no-store")], b""

    def _sign_in_page(self, params: Mapping[str, str]) -> Answer:
        hidden = "".join(f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
                         for k, v in params.items())
        choices = "".join(
            f'<li><button type="submit" name="person" value="{html.escape(p.sub)}">{html.escape(p.name)}</button> '
            f"<code>{html.escape(p.email)}</code> <small>{html.escape(p.note)}</small></li>" for p in PEOPLE)
        return _page(200, "Demo Corp SSO", "<p>A demo identity provider the local stack runs: choose who you are "
                                           "(no password; it only shows the flow).</p>"
                                           f'<form method="post" action="/authorize">{hidden}<ul>{choices}</ul></form>')

    def _token(self, form: Mapping[str, str], authorization: str) -> Answer:
        client_id, secret = form.get("client_id", ""), form.get("client_secret", "")
        scheme, _, credentials = authorization.partition(" ")
        if scheme.lower() == "basic":
            try:
                pair = base64.b64decode(credentials, validate=True).decode("utf-8")
            except ValueError:
                pair = ""
            client_id, _, secret = (unquote_plus(part) for part in pair.partition(":"))
        if client_id != CLIENT_ID or not hmac.compare_digest(secret.encode(), CLIENT_SECRET.encode()):
            return _json(401, {"error": "invalid_client"}, [("WWW-Authenticate", 'Basic realm="democorp"')])
        grant = self._codes.pop(form.get("code", ""), None)
        verifier = form.get("code_verifier", "")
        if (form.get("grant_type") != "authorization_code" or grant is None or grant.expires < time.time()
                or form.get("redirect_uri") != grant.redirect_uri
                or _b64(hashlib.sha256(verifier.encode("ascii", "replace")).digest()) != grant.challenge):
            return _json(400, {"error": "invalid_grant"})
        now = int(time.time())
        access_token = secrets.token_urlsafe(32)
        self._tokens[access_token] = (grant.person, now + TOKEN_SECONDS)
        person = grant.person
        claims = {"iss": self.issuer, "sub": person.sub, "aud": CLIENT_ID, "iat": now, "exp": now + TOKEN_SECONDS,
                  "auth_time": now, "nonce": grant.nonce, "sid": secrets.token_urlsafe(12), "acr": person.acr,
                  "amr": list(person.amr), "email": person.email, "email_verified": person.email_verified,
                  "name": person.name,
                  "at_hash": _b64(hashlib.sha256(access_token.encode("ascii")).digest()[:16])}
        return _json(200, {"access_token": access_token, "token_type": "Bearer", "expires_in": TOKEN_SECONDS,
                           "id_token": self._sign(claims)})

    def _sign(self, claims: dict[str, Any]) -> str:
        from authgate.tokens.jws import compact
        from authgate.tokens.local_backend import LocalSigner

        return compact({"alg": "ES256", "kid": self._kid, "typ": "JWT"}, claims,
                       LocalSigner(self._kid, "ES256", self._key))

    def _userinfo(self, authorization: str) -> Answer:
        scheme, _, token = authorization.partition(" ")
        found = self._tokens.get(token) if scheme.lower() == "bearer" else None
        if found is None or found[1] < time.time():
            return _json(401, {"error": "invalid_token"}, [("WWW-Authenticate", 'Bearer error="invalid_token"')])
        person = found[0]
        return _json(200, {"sub": person.sub, "email": person.email, "email_verified": person.email_verified,
                           "name": person.name})

    def _logout(self, query: Mapping[str, str]) -> Answer:
        back = query.get("post_logout_redirect_uri", "")
        if back.startswith(self.authgate + "/"):
            state = {"state": query["state"]} if query.get("state") else {}
            return 302, [("Location", back + (f"?{urlencode(state)}" if state else "")),
                         ("Cache-Control", "no-store")], b""
        return _page(200, "Signed out", "<p>You are signed out of Demo Corp SSO.</p>")


def _json(status: int, value: Any, extra: list[tuple[str, str]] | None = None) -> Answer:
    return status, [("Content-Type", "application/json"), ("Cache-Control", "no-store"), *(extra or [])], \
        json.dumps(value).encode("utf-8")


def _page(status: int, title: str, body: str) -> Answer:
    text = (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title></head>'
            f"<body><h1>{html.escape(title)}</h1>{body}</body></html>")
    return status, [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
                    ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"),
                    ("X-Content-Type-Options", "nosniff")], text.encode("utf-8")
