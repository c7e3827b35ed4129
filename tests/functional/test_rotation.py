"""Key rotation (next -> current -> previous -> retired) never causes invalid_token.

Time is driven through authgate.clock (the `clock` fixture), never slept. Validators are strict: one caches
the key list for exactly jwks_max_age and never refetches on an unknown kid; another caches
the served JWKS for the max-age its Cache-Control announces. Both must accept every token
until its own expiry, across rotations run on a schedule and as fast as the overlap rule allows.
"""

from __future__ import annotations

import json
import re
from typing import Any

import jwt
import pytest

from authgate.clock import ManualClock
from authgate.errors import ApiError
from tests.bearer_requests import (
    bearer,
    call,
    event,
    issue,
    problem,
)
from tests.demo import AUDIENCE, ISSUER
from tests.functional.cloudformation_support import answers

MAX_AGE, LEEWAY, TTL = 300, 120, 900


class JwksValidator:
    """An outside validator: fetches GET /.well-known/jwks.json, keeps it for its max-age."""

    def __init__(self, invoke: Any, clock: ManualClock) -> None:
        self.invoke, self.clock = invoke, clock
        self.keys: dict[str, Any] = {}
        self.expires = -1.0

    def verify(self, token: str) -> bool:
        if self.clock() >= self.expires:
            result = self.invoke("jwks", event("GET", "/.well-known/jwks.json"))
            max_age = int(re.search(r"max-age=(\d+)", result["multiValueHeaders"]["Cache-Control"][0]).group(1))
            self.keys = {k["kid"]: k for k in json.loads(result["body"])["keys"]}
            self.expires = self.clock() + max_age
        kid = jwt.get_unverified_header(token)["kid"]
        if kid not in self.keys:
            return False
        key = jwt.PyJWK(self.keys[kid])
        try:
            jwt.decode(token, key.key, algorithms=[self.keys[kid]["alg"]],
                       options={"verify_exp": False, "verify_iat": False, "verify_nbf": False, "verify_aud": False})
        except jwt.InvalidTokenError:
            return False
        return True


def run_stream(clock: ManualClock, invoke: Any, *, rotate_every: int, hours: int, step: int = 60) -> dict[str, int]:
    from authgate.stores.signing_keys import KeyStore
    from authgate.tokens.rotation import rotate
    from authgate.tokens.validator import AccessTokenValidator
    from authgate.tokens.verification_keys import KeyCache

    # Strict: reloads only every max-age, never because of an unknown kid.
    strict = AccessTokenValidator(KeyCache(lambda: KeyStore().published(), MAX_AGE, refresh_interval=10**9), LEEWAY)
    outside = JwksValidator(invoke, clock)
    live: list[Any] = []
    counts = {"promotions": 0, "retirements": 0, "validations": 0, "invalid": 0, "kids": 0}
    kids: set[str] = set()
    start = clock()
    while clock() - start < hours * 3600:
        elapsed = int(clock() - start)
        if elapsed and elapsed % rotate_every == 0:
            report = rotate()
            counts["promotions"] += bool(report.promoted)
            counts["retirements"] += len(report.retired)
        token = issue("charges:read")
        kids.add(jwt.get_unverified_header(token.token)["kid"])
        live.append((token, int(clock()) + TTL))
        live = [(t, exp) for t, exp in live if clock() <= exp]
        for t, _exp in live:
            counts["validations"] += 1
            try:
                strict.validate(t.token, issuer=ISSUER, audience=AUDIENCE, now=int(clock()))
            except ApiError:
                counts["invalid"] += 1
            counts["invalid"] += not outside.verify(t.token)
            # and through the real guard on a mounted route
            counts["invalid"] += call(event(headers=bearer(t.token)))[0] != 200
        clock.advance(step)
    counts["kids"] = len(kids)
    return counts


@pytest.mark.slow
def test_scheduled_rotation_stream_has_zero_invalid_token(keys: None, clock: ManualClock, invoke: Any) -> None:
    counts = run_stream(clock, invoke, rotate_every=3600, hours=3)
    assert counts["promotions"] >= 2 and counts["kids"] >= 3 and counts["retirements"] >= 1
    assert counts["invalid"] == 0, counts


@pytest.mark.slow
def test_rotation_as_fast_as_the_overlap_rule_allows_has_zero_invalid_token(
        keys: None, clock: ManualClock, invoke: Any) -> None:
    # rotate() on every step: keys move the moment the overlap rule lets them.
    counts = run_stream(clock, invoke, rotate_every=60, hours=2, step=60)
    assert counts["promotions"] >= 2 and counts["retirements"] >= 2
    assert counts["invalid"] == 0, counts


def test_lifecycle_times_follow_the_overlap_rule(keys: None, clock: ManualClock) -> None:
    from authgate.stores.signing_keys import KeyStore
    from authgate.tokens.rotation import rotate

    t0 = int(clock())
    [nxt] = [k for k in KeyStore().all() if k.state == "next"]
    [cur] = [k for k in KeyStore().all() if k.state == "current"]
    assert nxt.activates_at == t0 + MAX_AGE + LEEWAY
    clock.advance(MAX_AGE + LEEWAY - 1)
    assert rotate().promoted is None  # published for less than max-age + leeway: may not sign yet
    clock.advance(1)
    report = rotate()
    assert (report.promoted, report.demoted) == (nxt.kid, cur.kid)
    demoted = KeyStore().get(cur.kid)
    assert demoted is not None and demoted.state == "previous"
    assert demoted.retires_at == int(clock()) + 60 + TTL + LEEWAY  # signer cache + lifetime + leeway
    clock.advance(60 + TTL + LEEWAY - 1)
    assert rotate().retired == []
    clock.advance(1)
    assert rotate().retired == [cur.kid]
    retired = KeyStore().get(cur.kid)
    assert retired is not None and retired.state == "retired" and retired.expires_at > int(clock())


def test_token_signed_by_a_retired_or_unknown_key_is_invalid_token(keys: None, clock: ManualClock) -> None:
    from cryptography.hazmat.primitives.asymmetric import rsa

    from authgate.tokens.current_signer import current_signer
    from authgate.tokens.jws import compact
    from authgate.tokens.local_backend import LocalSigner
    from authgate.tokens.rotation import rotate

    old = current_signer()
    clock.advance(MAX_AGE + LEEWAY)
    rotate()

    def forged(signer: Any) -> str:
        now = int(clock())
        return compact({"typ": "at+jwt", "alg": "RS256", "kid": signer.kid},
                       {"iss": ISSUER, "sub": "demo-service", "aud": AUDIENCE, "exp": now + TTL, "iat": now,
                        "jti": "forged", "client_id": "demo-service", "scope": "charges:read", "tenant": "demo"},
                       signer)

    assert call(event(headers=bearer(forged(old))))[0] == 200  # previous: still published
    clock.advance(60 + TTL + LEEWAY)  # past retires_at, before any rotation run or cache reload
    detail = "The token was signed by an unknown key."
    expected = problem("invalid_token", "Invalid access token", 401, detail)
    assert call(event(headers=bearer(forged(old))))[::2] == (401, expected)
    rotate()
    assert call(event(headers=bearer(forged(old))))[::2] == (401, expected)
    unknown = LocalSigner("never-published", "RS256", rsa.generate_private_key(65537, 2048))
    assert call(event(headers=bearer(forged(unknown))))[::2] == (401, expected)


def test_rotate_keys_handler_runs_one_lifecycle_step(keys: None, clock: ManualClock, invoke: Any,
                                                     audit_events: Any) -> None:
    clock.advance(MAX_AGE + LEEWAY)
    report = invoke("rotate_keys", {"source": "aws.events", "detail-type": "Scheduled Event", "detail": {}})
    assert report["promoted"] and report["demoted"] and len(report["created"]) == 1
    assert sorted(k["state"] for k in report["keys"]) == ["current", "next", "previous"]
    (event,) = audit_events()
    assert (event["action"], event["actor"], event["target"], event["details"]) == (
        "key.rotated", {"type": "system", "id": "authgate"}, {"type": "key", "id": "signing-keys"},
        {"promoted": report["promoted"], "demoted": report["demoted"], "created": report["created"],
         "retired": report["retired"]})
    assert invoke("rotate_keys", {"source": "aws.events", "detail-type": "Scheduled Event", "detail": {}})
    assert len(audit_events()) == 1  # nothing moved: nothing recorded


def test_rotate_keys_runs_the_consoles_request_and_leaves_its_record_to_the_console(
        keys: None, clock: ManualClock, invoke: Any, audit_events: Any, log_lines: Any) -> None:
    from authgate.stores.signing_keys import KeyStore
    from authgate.tokens.rotation import RotationReport
    from authgate.tokens.rotation_request import REQUEST

    clock.advance(MAX_AGE + LEEWAY)
    report = invoke("rotate_keys", {"authgate": "rotate-now"})
    # One step, its whole report as the console reads it back; the console records key.rotated, by its operator.
    after = KeyStore().all()
    assert REQUEST == {"authgate": "rotate-now"}
    assert report == {"promoted": report["promoted"], "demoted": report["demoted"], "created": report["created"],
                      "retired": [], "promotions": [{"alg": "RS256", "promoted": report["promoted"],
                                                     "demoted": report["demoted"]}],
                      "keys": [{"kid": k.kid, "state": k.state, "alg": k.alg, "backend": k.backend,
                                "activates_at": k.activates_at, "retires_at": k.retires_at} for k in after]}
    assert sorted(k.state for k in after) == ["current", "next", "previous"] and len(report["created"]) == 1
    assert RotationReport.from_dict(report).keys == [k._replace(public_jwk="", created_at=0, secret_id="") for k in after]
    assert audit_events() == []
    assert [line["trigger"] for line in log_lines() if line["message"] == "signing keys rotated"] == ["request"]
    # Anything else is the schedule's event: one step all the same, recorded by the system, never by a name it carries.
    clock.advance(3600)
    moved = invoke("rotate_keys", {"authgate": "rotate-now", "actor": "mallory"})
    assert moved["retired"] == [report["demoted"]]
    assert [(e["actor"], e["details"]["retired"]) for e in audit_events()] == [
        ({"type": "system", "id": "authgate"}, [report["demoted"]])]


@pytest.mark.slow
def test_rotate_keys_answers_the_cloudformation_bootstrap(aws: None, invoke: Any) -> None:
    with answers() as (url, received):
        invoke("rotate_keys", {"RequestType": "Create", "ResponseURL": url, "StackId": "stack", "RequestId": "req",
                               "LogicalResourceId": "SigningKeysBootstrap", "ResourceProperties": {}})
    assert received == [{"Status": "SUCCESS", "Reason": "SUCCESS", "PhysicalResourceId": "authgate-signing-keys",
                         "StackId": "stack", "RequestId": "req", "LogicalResourceId": "SigningKeysBootstrap"}]
    from authgate.stores.signing_keys import KeyStore

    assert sorted(k.state for k in KeyStore().all()) == ["current", "next"]
