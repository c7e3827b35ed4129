"""Probes that change state (--mutating, with a client's credentials and an API key).

They issue access tokens, create one charge and replay it, and send a short burst until a 429.
`credentials` asks for the first token before any probe runs (refused credentials end the run in
one line), and `plan` says all of the rest before it is sent. RFC 6749 5.1 and RFC 9068 for the token;
contract 7.6 and the Idempotency-Key draft for the replay; contract 8 for the limits.
"""

from __future__ import annotations

import base64
import json
import secrets
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from urllib.parse import quote, urljoin

from authgate_cli.check.expectations import Expect
from authgate_cli.check.probes.base import CannotRun, Context, Options, ScenarioProbe, form
from authgate_cli.check.probes.discovery import fetch_metadata
from authgate_cli.check.transport import BudgetSpent, Exchange, TransportError

RATELIMIT_FIELDS = ("ratelimit", "ratelimit-policy", "ratelimit-remaining", "ratelimit-limit",
                    "x-ratelimit-remaining", "x-ratelimit-limit")
BURST_WORKERS = 8


def plan(options: Options, base_url: str, run_id: str) -> list[str]:
    """What a --mutating run will create or consume, in the words it prints before starting."""
    return [
        (f"request 2 access tokens for client {options.client_id} (client_credentials; scopes "
         f"\"{options.scope}\" and \"{options.read_scope}\")"),
        (f"POST {options.resource} with the \"{options.read_scope}\" token, which must be refused "
         "(403 insufficient_scope; if it is wrongly accepted, that creates one charge)"),
        (f"create 1 charge ({options.amount} {options.currency}, description \"authgate check {run_id}\") with a "
         "fresh Idempotency-Key, replay it once, then reuse the key with another amount (must be refused: 422)"),
        *([(f"POST {options.resource} for {options.sca_amount} {options.currency} with the --user-token, which must "
            "be refused (401 insufficient_user_authentication; if it is wrongly accepted, that creates one charge)")]
          if options.user_token and options.sca_amount else []),
        (f"send at most {options.burst} GET {options.resource}?limit=1 ({BURST_WORKERS} at a time, "
         f"{options.burst_seconds:.0f} s at most) until one is refused with 429"),
    ]


def _basic(options: Options) -> tuple[str, str]:
    pair = f"{quote(options.client_id or '', safe='')}:{quote(options.client_secret or '', safe='')}"
    return "Authorization", "Basic " + base64.b64encode(pair.encode()).decode()


def _token_request(ctx: Context, scope: str, url: str | None = None) -> Exchange:
    return ctx.exchange("POST", url or ctx.url("@token_endpoint", "/oauth/token"),
                        [("Content-Type", "application/x-www-form-urlencoded"), _basic(ctx.options)],
                        form({"grant_type": "client_credentials", "scope": scope}))


REFUSED = ("invalid_client", "unauthorized_client", "invalid_scope")


def _refused(exchange: Exchange, code: str) -> CannotRun:
    return CannotRun(f"the token endpoint refused --client-id/--client-secret/--scope "
                     f"({exchange.response.status} {code})")


def credentials(ctx: Context) -> None:
    """Ask for the main token before anything is printed or probed: credentials the token endpoint
    refuses end the run with one line (exit 2, no plan, no progress); mutating.token judges the answer."""
    try:
        found = _json(fetch_metadata(ctx)) or {}
        endpoint = found.get("token_endpoint")
        url = urljoin(ctx.base_url + "/", endpoint) if isinstance(endpoint, str) and endpoint else None
        exchange = _token_request(ctx, ctx.options.scope, url)
    except TransportError as exc:
        raise CannotRun(f"cannot reach {ctx.base_url}: {exc}") from None
    except BudgetSpent:
        raise CannotRun(f"stopped after --max-time {ctx.client.budget.seconds:g} s") from None
    if exchange.response.status != 200:
        code = ctx.judge(exchange, Expect(status=(200,), oauth=True)).reading.code  # no probe: nothing recorded
        if code in REFUSED:
            raise _refused(exchange, code)
    ctx.early["token"] = exchange


def _json(exchange: Exchange) -> dict[str, object] | None:
    try:
        data = json.loads(exchange.response.body)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def token(ctx: Context) -> None:
    assert ctx.current is not None
    exchange = ctx.early.pop("token", None)
    if exchange is None:
        exchange = _token_request(ctx, ctx.options.scope)
    else:
        ctx.current.requests += 1  # sent before the probes ran (credentials), judged here
    response = exchange.response
    if response.status != 200:
        verdict = ctx.judge(exchange, Expect(status=(200,), status_rule="token-response", oauth=True))
        if verdict.reading.code in REFUSED:
            raise _refused(exchange, verdict.reading.code)
        return
    data = _json(exchange) or {}
    access = data.get("access_token")
    if not isinstance(access, str) or str(data.get("token_type", "")).lower() != "bearer":
        ctx.find("token-response", "the token response lacks access_token or token_type Bearer", exchange)
        return
    ctx.tokens["full"] = access
    if "no-store" not in (response.header("cache-control") or "").lower():
        ctx.find("token-response", "a token response without Cache-Control: no-store", exchange)
    if "no-cache" not in (response.header("pragma") or "").lower():
        ctx.find("token-response", "a token response without Pragma: no-cache", exchange, "warning")
    if ctx.jwks is None:
        ctx.find("access-token-verifies", "no JWKS to verify the access token against", exchange)
        return
    from authgate_cli.check.tokens import verify_issued

    for problem in verify_issued(access, ctx.jwks, ctx.issuer):
        ctx.find("access-token-verifies", problem, exchange)


def _resource_headers(ctx: Context, token: str, *extra: tuple[str, str]) -> list[tuple[str, str]]:
    headers = [("Authorization", f"Bearer {token}"), *extra]
    if ctx.options.api_key:
        headers.append(("x-api-key", ctx.options.api_key))
    return headers


def _charge(ctx: Context, amount: int) -> bytes:
    return json.dumps({"amount": amount, "currency": ctx.options.currency,
                       "description": f"authgate check {ctx.run_id}"}).encode()


def _needed(ctx: Context) -> str:
    """What POST needs beyond the read-only token: the main token's other scopes (the step-up's scope=)."""
    read = ctx.options.read_scope.split()
    return " ".join(s for s in ctx.options.scope.split() if s not in read)


def insufficient_scope(ctx: Context) -> None:
    assert ctx.current is not None
    exchange = _token_request(ctx, ctx.options.read_scope)
    if exchange.response.status != 200 or not isinstance((_json(exchange) or {}).get("access_token"), str):
        ctx.judge(exchange, Expect(oauth=True))
        ctx.current.skip_reason = f"no \"{ctx.options.read_scope}\" token for this client ({exchange.response.status})"
        return
    read_token = str((_json(exchange) or {})["access_token"])
    attempt = ctx.exchange("POST", ctx.url(ctx.options.resource),
                           _resource_headers(ctx, read_token, ("Content-Type", "application/json")),
                           _charge(ctx, ctx.options.amount))
    ctx.judge(attempt, Expect(status=(403,), status_rule="insufficient-scope", codes=("insufficient_scope",),
                              challenge="Bearer", challenge_error="insufficient_scope",
                              challenge_rule="insufficient-scope", challenge_scope=_needed(ctx),
                              cite="contract 7.3; RFC 6750 3.1; RFC 9728 5.1"))


def strong_authentication(ctx: Context) -> None:
    """RFC 9470 3: a user's password-only token above the threshold gets the step-up challenge, in its syntax."""
    assert ctx.current is not None
    options = ctx.options
    if not options.user_token or not options.sca_amount:
        ctx.current.skip_reason = ("needs --user-token (a user's access token from a password-only sign-in) and "
                                   "--sca-amount (at or above the tenant's strong-authentication threshold)")
        return
    attempt = ctx.exchange("POST", ctx.url(options.resource),
                           _resource_headers(ctx, options.user_token, ("Content-Type", "application/json")),
                           _charge(ctx, options.sca_amount))
    ctx.judge(attempt, Expect(status=(401,), status_rule="step-up-authentication-challenge",
                              codes=("insufficient_user_authentication",), code_rule="step-up-authentication-challenge",
                              challenge="Bearer", challenge_error="insufficient_user_authentication",
                              challenge_rule="step-up-authentication-challenge", cite="RFC 9470 3"))
    if 200 <= attempt.response.status < 300:
        ctx.current.notes.append("the charge was accepted: check for it, and whether the token's sign-in was mfa")


def _issued_token(ctx: Context) -> str | None:
    """The token mutating.token obtained; without one the probe is a skip that says so."""
    access = ctx.tokens.get("full")
    if access is None and ctx.current is not None:
        ctx.current.skip_reason = "no access token (mutating.token did not get one)"
    return access


def idempotent_replay(ctx: Context) -> None:
    assert ctx.current is not None
    access = _issued_token(ctx)
    if access is None:
        return
    key = f"authgate-check-{ctx.run_id}-{secrets.token_hex(8)}"
    url = ctx.url(ctx.options.resource)
    headers = _resource_headers(ctx, access, ("Content-Type", "application/json"), ("Idempotency-Key", key))
    first = ctx.exchange("POST", url, headers, _charge(ctx, ctx.options.amount))
    if first.response.status not in (200, 201):
        verdict = ctx.judge(first, Expect())
        ctx.current.skip_reason = (f"the first charge was refused ({first.response.status} {verdict.reading.code}); "
                                   "see --currency/--amount")
        return
    replay = ctx.exchange("POST", url, headers, _charge(ctx, ctx.options.amount))
    created, again = _json(first) or {}, _json(replay) or {}
    if replay.response.status not in (200, 201):
        ctx.judge(replay, Expect(status=(200, 201), status_rule="idempotent-replay"))
    elif created.get("id", created) != again.get("id", again):
        ctx.find("idempotent-replay", f"the replay returned {again.get('id')!r}, not the charge "
                                      f"{created.get('id')!r} the key created: a duplicate", replay)
    elif replay.response.body != first.response.body:
        ctx.find("idempotent-replay", "the replay's body differs from the first answer's", replay, "warning")
    elif (replay.response.header("idempotent-replayed") or "").lower() != "true":
        ctx.find("idempotent-replay", "the replay does not say Idempotent-Replayed: true", replay, "warning")
    reuse = ctx.exchange("POST", url, headers, _charge(ctx, ctx.options.amount + 1))
    ctx.judge(reuse, Expect(status=(422,), status_rule="idempotency-key-reuse", codes=("idempotency_key_reused",),
                            code_rule="idempotency-key-reuse"))
    if 200 <= reuse.response.status < 300:
        ctx.current.notes.append("the key reused with another amount was accepted: check for a second charge")


def burst(ctx: Context) -> None:
    assert ctx.current is not None
    access = _issued_token(ctx)
    if access is None:
        return
    url = ctx.url(ctx.options.resource) + "?limit=1"
    deadline = time.monotonic() + min(ctx.options.burst_seconds, max(0.0, ctx.client.budget.left()))
    answers: list[Exchange] = []
    failures: list[str] = []
    with ThreadPoolExecutor(BURST_WORKERS) as pool:
        pending: set[Future[Exchange]] = set()
        sent = 0
        while True:
            limited = any(a.response.status == 429 for a in answers)
            while not limited and sent < ctx.options.burst and len(pending) < BURST_WORKERS \
                    and time.monotonic() < deadline:
                pending.add(pool.submit(ctx.exchange, "GET", url, _resource_headers(ctx, access)))
                sent += 1
            if not pending:
                break
            done, pending = wait(pending, timeout=max(0.1, deadline - time.monotonic()), return_when=FIRST_COMPLETED)
            for future in done:
                try:
                    answers.append(future.result())
                except (TransportError, BudgetSpent) as exc:
                    failures.append(str(exc) or type(exc).__name__)
            if not done and time.monotonic() >= deadline:
                break
    if failures:
        ctx.find("answers", f"{len(failures)} of {sent} burst requests got no answer: {failures[0]}")
    served = [a for a in answers if 200 <= a.response.status < 300]
    if served and not any(served[0].response.header(name) for name in RATELIMIT_FIELDS):
        ctx.find("ratelimit-fields", "a rate-limited route answers without RateLimit / RateLimit-Policy", served[0])
    refused = next((a for a in answers if a.response.status == 429), None)
    if refused is None:
        others = sorted({a.response.status for a in answers if not 200 <= a.response.status < 300})
        for answer in (a for a in answers if a.response.status in others[:1]):
            ctx.judge(answer, Expect())
            break
        ctx.current.skip_reason = (f"no 429 after {len(answers)} requests in the burst; raise --burst to reach "
                                   "the limit")
        return
    # The 429 may be the gateway's own (usage plan, stage throttling), which cannot echo a request id.
    ctx.judge(refused, Expect(status=(429,), echo=False, cite="contract 8 rule 1"))
    ctx.current.notes.append(f"429 after {len(answers)} requests; Retry-After {refused.response.header('retry-after')}")


PROBES = (
    ScenarioProbe("mutating.token", "a client_credentials token: 200, no-store, an at+jwt that verifies "
                  "against the JWKS", ("token-response", "access-token-verifies"), needs=("mutating",), steps=token),
    ScenarioProbe("mutating.insufficient-scope", "a read-only token on POST: 403 error=\"insufficient_scope\"",
                  ("insufficient-scope",), needs=("mutating",), steps=insufficient_scope),
    ScenarioProbe("mutating.idempotent-replay", "a charge replayed with its Idempotency-Key returns the same charge; "
                  "the key with another body is 422", ("idempotent-replay", "idempotency-key-reuse"),
                  needs=("mutating",), steps=idempotent_replay),
    ScenarioProbe("mutating.sca-challenge", "a user's password-only token above the threshold: 401 "
                  "error=\"insufficient_user_authentication\" with acr_values and max_age",
                  ("step-up-authentication-challenge",), needs=("mutating",), steps=strong_authentication),
    ScenarioProbe("mutating.rate-limit", "a short burst until 429: Retry-After on the 429, RateLimit fields before it",
                  ("retry-after-on-429-503", "ratelimit-fields"), needs=("mutating",), steps=burst),
)
