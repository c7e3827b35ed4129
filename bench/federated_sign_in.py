"""A sign-in through a tenant's OpenID Connect identity provider, in-process against moto (warm functions): the
DynamoDB calls and CPU of each of its three requests at authgate, and their sum (docs/federation.md).

The three requests: the button (POST /oauth/authorize: the pending sign-in kept, the page on to the IdP), the IdP's
answer (GET /oauth/federation/callback: the pending sign-in spent, the code redeemed at the IdP, the ID token
checked), and the page that brings it back (POST /oauth/authorize: who the person is, the session, the code). The
IdP is scripted on a local HTTPS server (tests/upstream_oidc.py); its discovery and keys are fetched in the warm-up
round, as a warm function holds them. Two people: one signing in again (linked already) and one provisioned on
the spot. Issue 39's budget: no more DynamoDB calls than a password sign-in's (9), and no password hash (scrypt
calls are counted). CPU is process time, which a shared machine does not inflate.
Run: `python -m bench federated_sign_in`.
"""

from __future__ import annotations

import hashlib
import html
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from bench.token_endpoint import CHALLENGE

BUDGET = 9
REDIRECT = "http://127.0.0.1:8765/callback"
STEPS = ("the button (POST /oauth/authorize)", "the IdP's answer (GET /oauth/federation/callback)",
         "back on the page (POST /oauth/authorize)")


class _Browser:
    """A cookie jar in front of the in-process authorize function, counting DynamoDB calls and CPU per request."""

    def __init__(self, authorize: Any, calls: Counter[str], scrypts: list[int]) -> None:
        self.authorize, self.calls, self.scrypts = authorize, calls, scrypts
        self.jar: dict[str, str] = {}
        self.figures: list[dict[str, Any]] = []

    def send(self, method: str, path: str, query: str = "", fields: dict[str, str] | None = None,
             counted: bool = True) -> dict[str, Any]:
        from authgate_cli.local.events import HttpRequest, build_event

        headers = [("Host", "127.0.0.1:3000")]
        if self.jar:
            headers.append(("Cookie", "; ".join(f"{k}={v}" for k, v in self.jar.items())))
        body = b""
        if fields is not None:
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
            body = urlencode(fields).encode()
        event = build_event(HttpRequest(method, path, query, headers, body), resource=path, path_params=None)
        self.calls.clear()
        before = len(self.scrypts)
        start, start_cpu = time.perf_counter(), time.process_time()
        result: dict[str, Any] = self.authorize(event, None)
        wall, cpu = (time.perf_counter() - start) * 1000, (time.process_time() - start_cpu) * 1000
        if counted:
            self.figures.append({"p50_ms": wall, "cpu_p50_ms": cpu, "dynamodb_calls": sum(self.calls.values()),
                                 "dynamodb_operations": dict(sorted(self.calls.items())),
                                 "scrypt": len(self.scrypts) - before})
        for cookie in (result.get("multiValueHeaders") or {}).get("Set-Cookie", []):
            name, _, value = cookie.split(";", 1)[0].partition("=")
            self.jar[name] = value
        return result


def _hidden(body: str) -> dict[str, str]:
    return {k: html.unescape(v) for k, v in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', body)}


def _sign_in(authorize: Any, calls: Counter[str], scrypts: list[int], provider: Any, subject: str,
             email: str) -> list[dict[str, Any]]:
    """One whole federated sign-in in a new browser; the figures of its three requests."""
    browser = _Browser(authorize, calls, scrypts)
    query = urlencode({"response_type": "code", "client_id": "demo-web", "redirect_uri": REDIRECT,
                       "scope": "openid charges:read", "state": "s", "code_challenge": CHALLENGE,
                       "code_challenge_method": "S256"})
    page = browser.send("GET", "/oauth/authorize", query, counted=False)
    onward = browser.send("POST", "/oauth/authorize", fields={**_hidden(page["body"]), "upstream": "idp-a"})
    found = re.search(r'content="0;url=([^"]+)"', onward["body"])
    assert found is not None, onward["body"][:500]
    asked = {k: v[0] for k, v in parse_qs(urlsplit(html.unescape(found.group(1))).query).items()}
    provider.answer_token(provider.id_token(nonce=asked["nonce"], sub=subject, email=email))
    back = browser.send("GET", "/oauth/federation/callback",
                        urlencode({"code": "c", "state": asked["state"], "iss": provider.issuer}))
    assert back["statusCode"] == 200, back["body"][:500]
    done = browser.send("POST", "/oauth/authorize", fields=_hidden(back["body"]))
    assert done["statusCode"] == 303, done["body"][:500]
    return browser.figures


def measure() -> dict[str, dict[str, Any]]:
    """The figures of a returning person's sign-in and of a provisioned one's, per request and summed."""
    from bench.moto_stack import moto_stack
    from tests.document_server import document_server
    from tests.upstream_oidc import ScriptedProvider

    with tempfile.TemporaryDirectory() as tmp, document_server(Path(tmp)) as server, moto_stack(
            SSL_CERT_FILE=str(server.ca), AUTHGATE_ALLOW_LOOPBACK_OUTBOUND="true",
            AUTHGATE_SESSION_SECRET="bench-session-secret-0123456789abcdef"):
        from authgate import caches
        from authgate.aws import dynamodb
        from authgate.stores.identity_providers import IdentityProviderStore
        from authgate.tokens.rotation import ensure_keys
        from authgate_cli.local.functions import load_handler
        from authgate_cli.local.seed import load_seed

        load_seed()
        ensure_keys()
        provider = ScriptedProvider(server, "idp-a")
        IdentityProviderStore().create(provider.idp(label="Acme SSO", create_users=True))
        caches.reset()
        authorize = load_handler("authorize")
        calls: Counter[str] = Counter()
        dynamodb().meta.events.register("before-call.dynamodb", lambda model, **_: calls.update([model.name]))
        scrypts: list[int] = []
        real_scrypt: Callable[..., bytes] = hashlib.scrypt

        def counted_scrypt(*args: Any, **kwargs: Any) -> bytes:
            scrypts.append(1)
            return real_scrypt(*args, **kwargs)

        hashlib.scrypt = counted_scrypt  # type: ignore[assignment]
        try:
            _sign_in(authorize, calls, scrypts, provider, "warm-up", "warm@elsewhere.example")  # discovery, keys
            returning = _sign_in(authorize, calls, scrypts, provider, "warm-up", "warm@elsewhere.example")
            provisioned = _sign_in(authorize, calls, scrypts, provider, "new-person", "new@elsewhere.example")
        finally:
            hashlib.scrypt = real_scrypt  # type: ignore[assignment]
    figures: dict[str, dict[str, Any]] = {}
    for who, steps in (("returning person", returning), ("provisioned person", provisioned)):
        for step, figure in zip(STEPS, steps, strict=True):
            figures[f"{who}: {step}"] = figure
        total: Counter[str] = Counter()
        for figure in steps:
            total.update(figure["dynamodb_operations"])
        figures[f"{who}: the whole sign-in"] = {
            "p50_ms": sum(f["p50_ms"] for f in steps), "cpu_p50_ms": sum(f["cpu_p50_ms"] for f in steps),
            "dynamodb_calls": sum(total.values()), "dynamodb_operations": dict(sorted(total.items())),
            "scrypt": sum(f["scrypt"] for f in steps)}
    return figures


def lines(figures: dict[str, dict[str, Any]]) -> list[str]:
    out = [("Federated sign-in (warm, moto; docs/federation.md): each request at authgate, and the whole sign-in "
            "(one round each; the IdP's own time is not counted):"), "",
           "| request | DynamoDB calls | wall (moto) | CPU | scrypt |", "|---|---|---|---|---|"]
    for name, f in figures.items():
        ops = ", ".join(f"{k} x{v}" for k, v in f["dynamodb_operations"].items())
        out.append(f"| {name} | {f['dynamodb_calls']} ({ops}) | {f['p50_ms']:.1f} ms | {f['cpu_p50_ms']:.2f} ms | "
                   f"{f['scrypt']} |")
    for who in ("returning person", "provisioned person"):
        whole = figures[f"{who}: the whole sign-in"]
        met = whole["dynamodb_calls"] <= BUDGET and whole["scrypt"] == 0
        out.append(f"\n{who}: {whole['dynamodb_calls']} DynamoDB calls, {whole['scrypt']} scrypt: budget (at most "
                   f"{BUDGET}, a password sign-in's, and no password hash) {'met' if met else 'NOT met'}")
    return out


def main() -> int:
    print("\n".join(lines(measure())))
    return 0
