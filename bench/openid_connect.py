"""OpenID Connect per-request cost, in-process against moto (warm functions), with DynamoDB calls and CPU.

Five figures through the real handlers: one sign-in through the password form (one round: its
DynamoDB calls, the hash included in its time), a code exchange without openid and one with it
(the ID token: one more signature, no DynamoDB call; again on a stack whose access tokens are ES256, its
ID token RS256 by the RS256 key in the same published-keys item), UserInfo (the user in the bearer check's
one BatchGetItem), and a silent re-authentication at the authorization endpoint (a session cookie
and remembered consent: a code with no page and no password hash). Issue 27's goal: the silent
re-authentication makes no more DynamoDB calls than the sign-in (`goal`; `python -m bench
sign_in` times the hash a sign-in pays beside). CPU is process time, which a shared machine does not inflate.
Run: `python -m bench openid_connect`.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from bench.token_endpoint import ALICE, CHALLENGE, VERIFIER, _event

N = 200
REDIRECT = "http://127.0.0.1:8765/callback"
# An ES256 stack's code exchange with openid: ES256 access token, RS256 ID token (docs/oidc.md, ID token algorithms).
ES256_EXCHANGE = "code exchange, openid, ES256 stack"


def _measure(prepare: Callable[[], dict[str, Any]], handler: Any, calls: Counter[str],
             status: int, rounds: int) -> tuple[float, float, Counter[str]]:
    """(median wall ms, median CPU ms, the DynamoDB calls of the last request) over `rounds` requests."""
    wall, cpu = [], []
    per_call: Counter[str] = Counter()
    for _ in range(rounds):
        event = prepare()
        calls.clear()
        start, start_cpu = time.perf_counter(), time.process_time()
        result = handler(event, None)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        assert result["statusCode"] == status, result["body"][:300]
        per_call = Counter(calls)
    wall.sort()
    cpu.sort()
    return wall[rounds // 2] * 1000, cpu[rounds // 2] * 1000, per_call


def measure(rounds: int = N) -> dict[str, dict[str, Any]]:
    """Per case: p50 wall and CPU (ms) and the DynamoDB calls of one request, `rounds` requests each; and the
    code exchange with openid on a stack whose access tokens are ES256 (its ID token RS256, by another key)."""
    import os

    figures = _figures(rounds)
    before = os.environ.get("AUTHGATE_SIGNING_ALG")
    try:
        es256 = _figures(rounds, signing_alg="ES256")
    finally:  # moto_stack leaves its environment behind: the next bench gets the default algorithm again
        if before is None:
            os.environ.pop("AUTHGATE_SIGNING_ALG", None)
        else:
            os.environ["AUTHGATE_SIGNING_ALG"] = before
    figures[ES256_EXCHANGE] = es256["code exchange, openid (ID token)"]
    return figures


def _figures(rounds: int, signing_alg: str = "") -> dict[str, dict[str, Any]]:
    """The cases on a fresh moto stack; with `signing_alg`, that stack's access-token algorithm and the two code
    exchanges only."""
    from bench.moto_stack import moto_stack

    with moto_stack(**({"AUTHGATE_SIGNING_ALG": signing_alg} if signing_alg else {})):
        import json

        from authgate.aws import dynamodb
        from authgate.single_use.authentication import Authentication
        from authgate.stores.codes import CodeStore
        from authgate.stores.consents import ConsentStore
        from authgate.stores.sessions import SessionStore
        from authgate.tokens.rotation import ensure_keys
        from authgate_cli.local.events import HttpRequest, build_event
        from authgate_cli.local.functions import load_handler
        from authgate_cli.local.seed import load_seed

        load_seed()
        ensure_keys()
        token, authorize = load_handler("token"), load_handler("authorize")
        calls: Counter[str] = Counter()
        dynamodb().meta.events.register("before-call.dynamodb", lambda model, **_: calls.update([model.name]))

        def exchange(scope: str) -> Callable[[], dict[str, Any]]:
            def prepare() -> dict[str, Any]:
                code = CodeStore().create(client_id="demo-web", tenant_id="demo", redirect_uri=REDIRECT,
                                          code_challenge=CHALLENGE, code_challenge_method="S256", scope=scope,
                                          subject="alice", nonce="n",
                                          authentication=Authentication(user_id=ALICE, auth_time=0))
                return _event({"grant_type": "authorization_code", "code": code, "code_verifier": VERIFIER,
                               "redirect_uri": REDIRECT}, "demo-web", "demo-web-secret")
            return prepare

        access = json.loads(token(exchange("openid profile email charges:read")(), None)["body"])["access_token"]

        def userinfo() -> dict[str, Any]:
            request = HttpRequest("GET", "/oauth/userinfo", "", [("Host", "127.0.0.1:3000"),
                                                                 ("Authorization", f"Bearer {access}")])
            return build_event(request, resource="/oauth/userinfo", path_params=None)

        secret, _ = SessionStore().create(tenant_id="demo", user_id=ALICE, username="alice", acr="password",
                                          amr=("pwd",), generation=0)
        ConsentStore().remember("demo", ALICE, "demo-web", ("openid", "charges:read"), None)

        def silent() -> dict[str, Any]:
            query = ("response_type=code&client_id=demo-web&scope=openid%20charges:read&prompt=none&nonce=n"
                     f"&redirect_uri={REDIRECT}&code_challenge={CHALLENGE}&code_challenge_method=S256&state=s")
            request = HttpRequest("GET", "/oauth/authorize", query, [("Host", "127.0.0.1:3000"),
                                                                     ("Cookie", f"authgate_session={secret}")])
            return build_event(request, resource="/oauth/authorize", path_params=None)

        token(exchange("charges:read")(), None)  # warm: signing key and modules loaded
        token(userinfo(), None)
        answer = authorize(silent(), None)
        location = {k.lower(): v for k, v in (answer.get("headers") or {}).items()}.get("location", "")
        location = location or str((answer.get("multiValueHeaders") or {}).get("Location", ""))
        assert "code=" in location, location  # a code, not login_required or consent_required
        exchanges = [("code exchange, no openid", exchange("charges:read"), token, 200),
                     ("code exchange, openid (ID token)", exchange("openid profile email charges:read"), token, 200)]
        if signing_alg:
            figures: dict[str, dict[str, Any]] = {}
            cases = exchanges
        else:
            figures = {"sign-in (password form)": _sign_in(authorize, calls, query_of(silent()))}
            cases = [*exchanges, ("userinfo", userinfo, token, 200), ("silent re-authentication", silent, authorize, 302)]
        for name, prepare, handler, status in cases:
            p50, cpu, per_call = _measure(prepare, handler, calls, status, rounds)
            figures[name] = {"p50_ms": p50, "cpu_p50_ms": cpu, "dynamodb_calls": sum(per_call.values()),
                             "dynamodb_operations": dict(sorted(per_call.items()))}
    return figures


def query_of(event: dict[str, Any]) -> str:
    """The silent request's query without prompt=none: the same request, signed in with the password."""
    from urllib.parse import urlencode

    params = {k: v for k, v in (event.get("queryStringParameters") or {}).items() if k != "prompt"}
    return urlencode(params)


def _sign_in(authorize: Any, calls: Counter[str], query: str) -> dict[str, Any]:
    """One sign-in through the form (GET the page, POST alice's password): its DynamoDB calls and wall time,
    the password hash included (one round: scrypt at full cost; `python -m bench sign_in` times the hash)."""
    import html
    import re

    from authgate_cli.local.events import HttpRequest, build_event

    page = authorize(build_event(HttpRequest("GET", "/oauth/authorize", query, [("Host", "127.0.0.1:3000")]),
                                 resource="/oauth/authorize", path_params=None), None)
    cookies = [c.split(";", 1)[0] for c in (page.get("multiValueHeaders") or {}).get("Set-Cookie", [])]
    fields = {k: html.unescape(v) for k, v in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"',
                                                          page["body"])}
    fields.update(username="alice", password="alice-password", decision="approve")
    from urllib.parse import urlencode

    post = build_event(HttpRequest("POST", "/oauth/authorize", "", [
        ("Host", "127.0.0.1:3000"), ("Cookie", "; ".join(cookies)),
        ("Content-Type", "application/x-www-form-urlencoded")], urlencode(fields).encode()),
        resource="/oauth/authorize", path_params=None)
    calls.clear()
    start, start_cpu = time.perf_counter(), time.process_time()
    result = authorize(post, None)
    wall, cpu = (time.perf_counter() - start) * 1000, (time.process_time() - start_cpu) * 1000
    assert result["statusCode"] == 303, result["body"][:300]
    return {"p50_ms": wall, "cpu_p50_ms": cpu, "dynamodb_calls": sum(calls.values()),
            "dynamodb_operations": dict(sorted(calls.items()))}


def goal(figures: dict[str, dict[str, Any]]) -> str:
    """Issue 27's goal: a silent re-authentication costs no more than a sign-in minus the password hash."""
    silent, sign_in = figures["silent re-authentication"], figures["sign-in (password form)"]
    met = silent["dynamodb_calls"] <= sign_in["dynamodb_calls"]
    return (f"silent re-authentication: {silent['dynamodb_calls']} DynamoDB calls, a sign-in "
            f"{sign_in['dynamodb_calls']} plus the password hash: goal (no more than a sign-in minus the hash) "
            f"{'met' if met else 'NOT met'}")


def table(intro: str, figures: dict[str, dict[str, Any]]) -> list[str]:
    """A report table of requests: DynamoDB calls, p50 and CPU p50 (docs/performance.md)."""
    out = [intro, "", "| request | DynamoDB calls | p50 (moto) | CPU p50 |", "|---|---|---|---|"]
    for name, f in figures.items():
        ops = ", ".join(f"{k} x{v}" for k, v in f["dynamodb_operations"].items())
        out.append(f"| {name} | {f['dynamodb_calls']} ({ops}) | {f['p50_ms']:.1f} ms | {f['cpu_p50_ms']:.2f} ms |")
    return out


def lines(figures: dict[str, dict[str, Any]]) -> list[str]:
    """The report's table (docs/performance.md), then the goal's line."""
    return [*table("OpenID Connect (warm, moto; docs/oidc.md): a code exchange with and without the ID token, "
                   "UserInfo, a sign-in through the form, and a silent re-authentication (a session cookie and "
                   "remembered consent: a code, no page, no password hash):", figures), "", goal(figures)]


def main() -> int:
    figures = measure()
    print(f"{'request':34} {'p50':>9} {'CPU p50':>9}  DynamoDB calls per request (moto, in-process, N={N})")
    for name, f in figures.items():
        print(f"{name:34} {f['p50_ms']:7.2f}ms {f['cpu_p50_ms']:7.2f}ms  {f['dynamodb_calls']}: "
              f"{f['dynamodb_operations']}")
    print(goal(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
