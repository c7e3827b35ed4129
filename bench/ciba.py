"""Approval by the payer (CIBA poll mode) per-request cost, in-process against moto (warm token function).

Three figures through the real token handler: a backchannel authentication request (POST
/oauth/backchannel) naming bob, the same naming nobody the tenant knows (the same calls: nothing
tells whether an account exists; the approval mail and webhook are queued either way, never sent
inline), and a poll while the request is pending (authorization_pending). The issue's goal: a poll
costs one DynamoDB call beside the client's own BatchGetItem (docs/ciba.md).
Run: `python -m bench ciba`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from bench.openid_connect import _measure, table
from bench.token_endpoint import _event

N = 200
CIBA = "urn:openid:params:grant-type:ciba"


def measure(rounds: int = N) -> dict[str, dict[str, Any]]:
    """Per case: p50 wall and CPU (ms) and the DynamoDB calls of one request, `rounds` requests each."""
    from bench.moto_stack import moto_stack

    with moto_stack():
        from authgate.aws import dynamodb
        from authgate.stores.backchannel_requests import BackchannelRequestStore
        from authgate.stores.clients import ClientStore
        from authgate.tokens.rotation import ensure_keys
        from authgate_cli.local.functions import load_handler
        from authgate_cli.local.seed import load_seed

        load_seed()
        ensure_keys()
        clients = ClientStore()
        client = clients.get("demo-web")
        assert client is not None
        clients.replace(client._replace(grant_types=(*client.grant_types, CIBA)))
        token = load_handler("token")
        calls: Counter[str] = Counter()
        dynamodb().meta.events.register("before-call.dynamodb", lambda model, **_: calls.update([model.name]))

        def start(hint: str = "bob") -> dict[str, Any]:
            event = _event({"scope": "openid charges:read", "login_hint": hint}, "demo-web", "demo-web-secret")
            return {**event, "path": "/oauth/backchannel", "resource": "/oauth/backchannel"}

        def start_for_nobody() -> dict[str, Any]:
            return start("nobody")

        def pending() -> dict[str, Any]:
            auth_req_id, _ = BackchannelRequestStore().create(
                client_id="demo-web", tenant_id="demo", user_id="usr_demobob000000000000000", username="bob",
                scope="openid charges:read", binding_message="", lifetime=300, interval=5)
            return _event({"grant_type": CIBA, "auth_req_id": auth_req_id}, "demo-web", "demo-web-secret")

        token(start(), None)  # warm: signing key, tenant and modules loaded
        token(pending(), None)
        figures: dict[str, dict[str, Any]] = {}
        for name, prepare, status in (("backchannel request", start, 200),
                                      ("backchannel request naming nobody", start_for_nobody, 200),
                                      ("CIBA poll, pending", pending, 400)):
            p50, cpu, per_call = _measure(prepare, token, calls, status, rounds)
            figures[name] = {"p50_ms": p50, "cpu_p50_ms": cpu, "dynamodb_calls": sum(per_call.values()),
                             "dynamodb_operations": dict(sorted(per_call.items()))}
    return figures


def lines(figures: dict[str, dict[str, Any]]) -> list[str]:
    """The report's table (docs/performance.md)."""
    return table("Approval by the payer, CIBA poll mode (warm, moto; docs/ciba.md): a backchannel request, and a "
                 "poll while it is pending:", figures)


def main() -> int:
    figures = measure()
    for line in lines(figures):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
