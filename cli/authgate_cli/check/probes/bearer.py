"""Bearer challenges on the protected resource (contract 5, 7.3; RFC 6750 3, 3.1; RFC 9068 4).

authgate's resource routes sit behind an API key that API Gateway checks first, so these
probes need --api-key to reach the bearer guard at all.
"""

from __future__ import annotations

from authgate_cli.check.expectations import Expect
from authgate_cli.check.probes.base import (
    API_KEY,
    BEARER_EMPTY,
    BEARER_EXPIRED,
    BEARER_FOREIGN,
    BEARER_GARBAGE,
    RequestProbe,
    Send,
)

RULES = ("bearer-challenge", "bearer-rejects-bad-tokens", "challenge-on-401")
CITE = "contract 7.3; RFC 6750 3.1"
INVALID_TOKEN = Expect(status=(401,), status_rule="bearer-rejects-bad-tokens", challenge="Bearer",
                       challenge_error="invalid_token")


def probes(resource: str) -> tuple[RequestProbe, ...]:
    def _probe(name: str, title: str, credential: str | None, expect: Expect) -> RequestProbe:
        credentials = (API_KEY,) if credential is None else (API_KEY, credential)
        return RequestProbe(name, title, RULES, needs=(API_KEY,),
                            send=Send("GET", resource, credentials=credentials), expect=expect)

    return (
        _probe("bearer.no-credentials", "no Authorization: 401 with a Bearer challenge and no error code", None,
               Expect(status=(401,), challenge="Bearer", challenge_error="", cite=CITE)),
        _probe("bearer.empty-token", "\"Bearer\" without a token: 400 with error=\"invalid_request\"", BEARER_EMPTY,
               Expect(status=(400,), challenge="Bearer", challenge_error="invalid_request", cite=CITE)),
        _probe("bearer.garbage-token", "a token that is not a JWT: 401 error=\"invalid_token\"", BEARER_GARBAGE,
               INVALID_TOKEN),
        _probe("bearer.expired-token", "an expired token (published kid, foreign signature): 401 invalid_token",
               BEARER_EXPIRED, INVALID_TOKEN),
        _probe("bearer.foreign-signed-token", "a current token signed by an unpublished key: 401 invalid_token",
               BEARER_FOREIGN, INVALID_TOKEN),
    )
