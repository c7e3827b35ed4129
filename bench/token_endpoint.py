"""Token endpoint per-request cost, in-process against moto (warm function), with DynamoDB calls.

Three grants through the real token handler: client_credentials, authorization_code (+PKCE),
refresh_token (rotation). The time is handler + moto; on AWS the storage part is DynamoDB's
latency instead (a few ms per call), which is why the call count is the figure that carries
over. moto's TransactWriteItems deep-copies the whole table to be able to roll back, so the
refresh and code rows grow with the table here; DynamoDB's transactions do not.
Run: `python -m bench token_endpoint`.
"""

from __future__ import annotations

import base64
import json
import time
from collections import Counter
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

N = 200
VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
ALICE = "usr_demoalice0000000000000"  # the demo seed's alice


def signed_in() -> Any:
    """alice's password sign-in, now, as the authorize endpoint records it beside every code it makes (the token's
    `sub` is its user_id)."""
    from authgate import clock
    from authgate.single_use.authentication import Authentication

    return Authentication(ALICE, clock.seconds())


def _event(fields: dict[str, str], client_id: str, secret: str) -> dict[str, Any]:
    auth = "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()
    return {"httpMethod": "POST", "path": "/oauth/token", "resource": "/oauth/token",
            "headers": {"Content-Type": "application/x-www-form-urlencoded", "Authorization": auth},
            "body": urlencode(fields), "requestContext": {"requestId": "bench", "identity": {"sourceIp": "198.51.100.1"}}}


def _measure(prepare: Callable[[], dict[str, Any]], handler: Any, calls: Counter[str]) -> tuple[float, float, Counter[str]]:
    timings = []
    per_call: Counter[str] = Counter()
    for _ in range(N):
        event = prepare()
        calls.clear()
        start = time.perf_counter()
        result = handler(event, None)
        timings.append(time.perf_counter() - start)
        assert result["statusCode"] == 200, result["body"]
        per_call = Counter(calls)
    timings.sort()
    return timings[len(timings) // 2] * 1000, timings[int(len(timings) * 0.95)] * 1000, per_call


def main() -> int:
    from bench.moto_stack import moto_stack

    with moto_stack():
        from authgate.aws import dynamodb
        from authgate.stores.codes import CodeStore
        from authgate.tokens.rotation import ensure_keys
        from authgate_cli.local.functions import load_handler
        from authgate_cli.local.seed import load_seed

        load_seed()
        ensure_keys()
        handler = load_handler("token")
        calls: Counter[str] = Counter()
        dynamodb().meta.events.register("before-call.dynamodb", lambda model, **_: calls.update([model.name]))

        def client_credentials() -> dict[str, Any]:
            return _event({"grant_type": "client_credentials"}, "demo-service", "demo-service-secret")

        def code_exchange() -> dict[str, Any]:
            code = CodeStore().create(client_id="demo-web", tenant_id="demo", redirect_uri="http://127.0.0.1:8765/callback",
                                      code_challenge=CHALLENGE, code_challenge_method="S256",
                                      scope="charges:read", subject="alice", authentication=signed_in())
            return _event({"grant_type": "authorization_code", "code": code, "code_verifier": VERIFIER,
                           "redirect_uri": "http://127.0.0.1:8765/callback"}, "demo-web", "demo-web-secret")

        refresh = {"token": ""}

        def refresh_token() -> dict[str, Any]:
            if not refresh["token"]:
                refresh["token"] = json.loads(handler(code_exchange(), None)["body"])["refresh_token"]
            event = _event({"grant_type": "refresh_token", "refresh_token": refresh["token"]},
                           "demo-web", "demo-web-secret")
            refresh["token"] = ""  # rotated: the next round starts a new family
            return event

        handler(client_credentials(), None)  # warm: signing key and modules loaded
        print(f"{'grant':20} {'p50':>9} {'p95':>9}  DynamoDB calls per request (moto, in-process, N={N})")
        for name, prepare in (("client_credentials", client_credentials), ("authorization_code", code_exchange),
                              ("refresh_token", refresh_token)):
            p50, p95, per_call = _measure(prepare, handler, calls)
            print(f"{name:20} {p50:7.2f}ms {p95:7.2f}ms  {sum(per_call.values())}: {dict(sorted(per_call.items()))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
