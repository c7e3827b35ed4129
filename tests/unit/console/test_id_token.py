"""console.id_token: the ID token of the console's sign-in, checked claim by claim against this stack's keys."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest

from authgate.clock import ManualClock

ISSUER = "http://127.0.0.1:3000"
NONCE = "the-nonce-of-this-sign-in"
MAX_AGE = 43200


def _issued(clock: ManualClock, *, acr: str = "mfa", age: int = 0, client_id: str = "authgate-console",
            nonce: str = NONCE, issuer: str = ISSUER) -> str:
    """An ID token this stack signs at the token endpoint (oauth.token.id_token), for a sign-in `age` seconds old."""
    from authgate.oauth.token.id_token import issue_id_token
    from authgate.single_use.authentication import Authentication

    return issue_id_token(issuer=issuer, client_id=client_id, access_token="at", nonce=nonce,
                          authentication=Authentication("usr_olivia", int(clock()) - age, acr, ("pwd", "otp", "mfa"),
                                                        "sid-1"))


def _validated(token: str, clock: ManualClock, nonce: str = NONCE) -> dict[str, Any]:
    from authgate.console.id_token import validated

    return validated(token, issuer=ISSUER, client_id="authgate-console", nonce=nonce, max_age=MAX_AGE,
                     now=int(clock()))


def _resigned(token: str, change: Callable[[dict[str, Any]], None]) -> str:
    """`token` with its claims changed and its signature kept (no longer its claims')."""
    head, body, tail = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    change(claims)
    return ".".join([head, base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode(), tail])


def test_a_sign_in_at_mfa_within_max_age_holds(keys: None, clock: ManualClock) -> None:
    claims = _validated(_issued(clock, age=MAX_AGE - 1), clock)
    assert (claims["sub"], claims["acr"], claims["sid"], claims["aud"]) == ("usr_olivia", "mfa", "sid-1",
                                                                             "authgate-console")


@pytest.mark.parametrize(("make", "reason"), [
    (lambda c: _issued(c, acr="password"), "acr 'password' is not mfa"),
    (lambda c: _issued(c, age=MAX_AGE + 121), "s ago"),
    (lambda c: _issued(c, client_id="demo-web"), "is not 'authgate-console'"),
    (lambda c: _issued(c, issuer="https://other.example"), "iss 'https://other.example'"),
    (lambda c: _issued(c, nonce="another"), "the nonce is not this sign-in's"),
    (lambda c: _resigned(_issued(c), lambda claims: claims.update(acr="mfa", sub="usr_someone")),
     "no published key of this stack verifies it"),
    (lambda c: "e30." + _issued(c).split(".", 1)[1], "header or signature refused"),
    (lambda c: "x.y", "not a compact JWS"),
])
def test_each_claim_that_does_not_hold_refuses_the_sign_in(keys: None, clock: ManualClock,
                                                            make: Callable[[ManualClock], str], reason: str) -> None:
    from authgate.console.id_token import SignInRefused

    with pytest.raises(SignInRefused) as refused:
        _validated(make(clock), clock)
    assert reason in str(refused.value)


def test_an_expired_id_token_is_refused(keys: None, clock: ManualClock) -> None:
    from authgate.console.id_token import SignInRefused

    token = _issued(clock)
    clock.advance(900 + 121)
    with pytest.raises(SignInRefused, match="exp"):
        _validated(token, clock)
