"""The operations the issue budgets, as repeatable handler invocations on the demo stack.

Each operation yields a fresh event per call (a new authorization code, the refresh token the
previous call returned, a new Idempotency-Key), so a loop measures the success path every time
and never a replayed or rejected request. Work that only prepares an event (storing a code)
happens in `next_event`, outside whatever the caller times or counts.
Use inside `authgate_cli.local.invoke.local_aws()` (moto, atomic, demo seed, keys).
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus, urlencode

EVENTS = Path(__file__).resolve().parents[1] / "events"
WEB_REDIRECT = "http://127.0.0.1:8765/callback"
VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()
# The bench's own quotas, so hundreds of calls a minute from one client and IP stay 2xx.
NEW_TOKEN_GET = "GET /charges/{id}, a new access token"
UNDER_DETAILS = "POST /charges under authorization_details"
BENCH_LIMITS = {"AUTHGATE_RATE_TENANT": "10000", "AUTHGATE_RATE_CLIENT": "10000", "AUTHGATE_RATE_IP": "10000"}


@dataclass
class Operation:
    """One budgeted request: which function, how to build its next event, what success is."""

    name: str
    function: str
    next_event: Callable[[], dict[str, Any]]
    status: int
    budget: int | None = None  # DynamoDB calls allowed (issues 9 and 15), None when unbudgeted
    # Called with each result, e.g. to carry the rotated refresh token into the next event.
    after: Callable[[dict[str, Any]], None] = lambda result: None


def sample(name: str) -> dict[str, Any]:
    """events/<name>.json with placeholders ({{access_token ...}}) minted on the current stack."""
    from authgate_cli.local.invoke import prepare

    event, _ = prepare(json.loads((EVENTS / f"{name}.json").read_text("utf-8")))
    return event


def with_header(event: dict[str, Any], name: str, value: str) -> dict[str, Any]:
    event = {**event, "headers": {**event["headers"], name: value},
             "multiValueHeaders": {**event["multiValueHeaders"], name: [value]}}
    return event


def with_form(event: dict[str, Any], fields: list[tuple[str, str]], client_id: str, secret: str) -> dict[str, Any]:
    """A token-endpoint event with this form body and client_secret_basic (RFC 6749 2.3.1)."""
    raw = f"{quote_plus(client_id)}:{quote_plus(secret)}".encode()
    event = with_header(event, "Authorization", "Basic " + base64.b64encode(raw).decode())
    return {**event, "body": urlencode(fields)}


def new_code() -> str:
    """A code exactly as the authorize endpoint stores it (through the real CodeStore), with the sign-in."""
    from authgate.stores.codes import CodeStore
    from bench.token_endpoint import signed_in

    return CodeStore().create(client_id="demo-web", tenant_id="demo", redirect_uri=WEB_REDIRECT,
                              code_challenge=CHALLENGE, code_challenge_method="S256",
                              scope="charges:read charges:write", subject="alice", authentication=signed_in())


def charge_get(handler: Callable[[dict[str, Any], Any], dict[str, Any]],
               create: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """GET /charges/{id} of the charge `create` makes through `handler` (made on the first call).

    Built once: a GET changes nothing, and minting a token per event is the bench's own cost."""
    from authgate_cli.local.context import LambdaContext

    built: list[dict[str, Any]] = []

    def event() -> dict[str, Any]:
        if not built:
            charge_id = json.loads(handler(create, LambdaContext("charges"))["body"])["id"]
            built.append({**sample("charges-get-not-found-404"), "path": f"/charges/{charge_id}",
                          "pathParameters": {"id": charge_id}})
        return built[0]

    return event


def with_new_token(event: dict[str, Any]) -> dict[str, Any]:
    """`event` with a newly minted access token of the same client, tenant and scope (signed by the
    current key, outside any timed span): a request whose token the function has not verified yet."""
    from authgate.tokens.access_token import issue_access_token

    token = event["headers"]["Authorization"].split(" ", 1)[1]
    claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    issued = issue_access_token(issuer=claims["iss"], subject=claims["sub"], client_id=claims["client_id"],
                                tenant=claims["tenant"], scope=claims["scope"], audience=claims["aud"])
    return with_header(event, "Authorization", f"Bearer {issued.token}")


# The grant's approved payment under RFC 9396: room for every charge of one token (docs/payments-consent.md).
PAYMENT = {"type": "charge", "actions": ["create"], "amount": 5000, "currency": "usd", "max_charges": 100}


def under_authorization_details(event: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """POST /charges with a token carrying `charge` details (RFC 9396): each call a new Idempotency-Key, and a
    new grant's token every PAYMENT["max_charges"] charges, so its budget is never spent; the grant's counter
    is one more member of the charge's own transaction."""
    from authgate.tokens.access_token import issue_access_token

    token = event["headers"]["Authorization"].split(" ", 1)[1]
    claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    keys, grants = itertools.count(), itertools.count()
    state = {"event": event, "left": 0}

    def next_event() -> dict[str, Any]:
        if state["left"] == 0:
            issued = issue_access_token(issuer=claims["iss"], subject="alice", client_id=claims["client_id"],
                                        tenant=claims["tenant"], scope=claims["scope"], audience=claims["aud"],
                                        grant_id=f"bench-grant-{next(grants)}", acr="password",
                                        authorization_details=[PAYMENT])
            state["event"], state["left"] = with_header(event, "Authorization", f"Bearer {issued.token}"), \
                PAYMENT["max_charges"]
        state["left"] -= 1
        return with_header(state["event"], "Idempotency-Key", f"bench-rar-{next(keys)}")

    return next_event


class DpopClient:
    """A client's DPoP key (joserfc, an outside implementation) and a fresh proof per request (RFC 9449 4.2)."""

    def __init__(self) -> None:
        from joserfc.jwk import ECKey

        self.key = ECKey.generate_key("P-256")
        self.jwk = dict(self.key.as_dict(private=False))
        self.serial = itertools.count()

    def proof(self, method: str, url: str, access_token: str | None = None) -> str:
        from joserfc import jwt

        from authgate import clock

        claims: dict[str, Any] = {"jti": f"bench-{next(self.serial)}", "htm": method, "htu": url,
                                  "iat": clock.seconds()}
        if access_token is not None:
            claims["ath"] = base64.urlsafe_b64encode(
                hashlib.sha256(access_token.encode()).digest()).rstrip(b"=").decode()
        return str(jwt.encode({"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk}, claims, self.key,
                              algorithms=["ES256"]))


def dpop_operations(token_base: dict[str, Any], get_event: Callable[[], dict[str, Any]]) -> list[Operation]:
    """The DPoP twins of the client_credentials token and GET /charges/{id} (issue 13 item 8)."""
    from authgate_cli.local.context import LambdaContext
    from authgate_cli.local.functions import load_handler

    issuer = "http://127.0.0.1:3000"
    client = DpopClient()
    bound: list[str] = []

    def token_event() -> dict[str, Any]:
        return with_header(token_base, "DPoP", client.proof("POST", f"{issuer}/oauth/token"))

    def charge_event() -> dict[str, Any]:
        if not bound:
            result = load_handler("token")(token_event(), LambdaContext("token"))
            bound.append(json.loads(result["body"])["access_token"])
        event = get_event()
        event = with_header(event, "Authorization", f"DPoP {bound[0]}")
        return with_header(event, "DPoP", client.proof("GET", issuer + event["path"], bound[0]))

    return [
        # One more call than each bearer twin: the proof's jti, one conditional PutItem.
        Operation("client_credentials token, DPoP", "token", token_event, 200, budget=3),
        Operation("GET /charges/{id}, DPoP", "charges", charge_event, 200, budget=3),
    ]


def build() -> list[Operation]:
    """The budgeted operations, in docs/performance.md's order."""
    token_base = sample("token-client-credentials")

    def exchange_event() -> dict[str, Any]:
        fields = [("grant_type", "authorization_code"), ("code", new_code()),
                  ("redirect_uri", WEB_REDIRECT), ("code_verifier", VERIFIER)]
        return with_form(token_base, fields, "demo-web", "demo-web-secret")

    refresh = {"token": ""}

    def refresh_event() -> dict[str, Any]:
        if not refresh["token"]:
            from authgate_cli.local.context import LambdaContext
            from authgate_cli.local.functions import load_handler

            first = load_handler("token")(exchange_event(), LambdaContext("token"))
            refresh["token"] = json.loads(first["body"])["refresh_token"]
        fields = [("grant_type", "refresh_token"), ("refresh_token", refresh["token"])]
        return with_form(token_base, fields, "demo-web", "demo-web-secret")

    def rotated(result: dict[str, Any]) -> None:
        refresh["token"] = json.loads(result["body"])["refresh_token"]

    from authgate_cli.local.functions import load_handler

    keys = itertools.count()
    create = sample("charges-create-idempotent")
    replay = with_header(create, "Idempotency-Key", "bench-replay")
    get_event = charge_get(load_handler("charges"), replay)

    return [
        Operation("client_credentials token", "token", lambda: token_base, 200, budget=2),
        Operation("authorization_code exchange", "token", exchange_event, 200, budget=3),
        Operation("refresh_token", "token", refresh_event, 200, budget=4, after=rotated),
        Operation("GET /oauth/authorize", "authorize", lambda: sample("authorize-get-login-page"), 200),
        Operation("GET /.well-known/jwks.json", "jwks", lambda: sample("jwks-get-jwks"), 200),
        Operation("POST /charges, first with Idempotency-Key", "charges",
                  lambda: with_header(create, "Idempotency-Key", f"bench-{next(keys)}"), 201, budget=3),
        Operation("POST /charges, replay", "charges", lambda: replay, 201, budget=2),
        # RFC 9396: the same charge within a token's `charge` details (docs/payments-consent.md); goal: no
        # DynamoDB call more than the charge above, its budget one more member of the same transaction.
        Operation(UNDER_DETAILS, "charges", under_authorization_details(create), 201, budget=3),
        Operation("GET /charges/{id}", "charges", get_event, 200, budget=2),
        # A token's first request: every request above reuses one token, as a client does for its
        # lifetime, so the function checks its signature once (tokens.validator).
        Operation(NEW_TOKEN_GET, "charges", lambda: with_new_token(get_event()), 200, budget=2),
        *dpop_operations(token_base, get_event),
    ]


def build_reference() -> list[tuple[Operation, Any, dict[str, Any]]]:
    """The same operations served by the reference stack (bench/reference): (operation, handler, clients)."""
    from bench import reference

    token_app, charges_app = reference.load("token"), reference.load("charges")
    keys = itertools.count()
    create = sample("charges-create-idempotent")
    replay = with_header(create, "Idempotency-Key", "reference-replay")
    get_event = charge_get(charges_app.handler, replay)

    token_base = sample("token-client-credentials")
    token, charges = (token_app.handler, token_app.clients()), (charges_app.handler, charges_app.clients())
    return [
        (Operation("client_credentials token", "token", lambda: token_base, 200), *token),
        (Operation("POST /charges, first with Idempotency-Key", "charges",
                   lambda: with_header(create, "Idempotency-Key", f"reference-{next(keys)}"), 201), *charges),
        (Operation("POST /charges, replay", "charges", lambda: replay, 201), *charges),
        (Operation("GET /charges/{id}", "charges", get_event, 200), *charges),
        (Operation(NEW_TOKEN_GET, "charges", lambda: with_new_token(get_event()), 200), *charges),
    ]
