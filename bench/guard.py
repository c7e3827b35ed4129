"""The bearer guard's cost per request against a bare `jwt.decode` of the same token, one run.

Warm figures (key and client caches filled), in-process moto. Rows: PyJWT alone
(signature + exp/aud/iss), the guard without storage (tokens.validation: header parsing,
allow-lists, signature, claims; every check every time, as for a token's first use), the same
for a token the function has already verified (its verified-token cache), and the whole check
as a route sees it (tokens.resource: plus the one BatchGetItem of the revocation ids, here
against moto, so the storage part is moto's cost, not DynamoDB's).
Run: `python -m bench guard`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

N = 2000


def _per_call_us(fn: Callable[[], Any], n: int = N) -> float:
    for _ in range(50):
        fn()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n * 1e6


def measure(alg: str, n: int = N) -> dict[str, float]:
    from bench.moto_stack import moto_stack

    with moto_stack(AUTHGATE_SIGNING_ALG=alg):
        import jwt

        from authgate.clients.model import Client
        from authgate.http.request import Request
        from authgate.stores.clients import ClientStore
        from authgate.stores.signing_keys import KeyStore
        from authgate.tokens.access_token import issue_access_token
        from authgate.tokens.resource import require_bearer
        from authgate.tokens.rotation import ensure_keys
        from authgate.tokens.validation import AccessTokenValidator, default_validator
        from authgate.tokens.verification_keys import KeyCache

        ensure_keys()
        ClientStore().put(Client("bench", "demo", "local", "confidential", "x", (), ("client_credentials",),
                                 ("charges:read",)))
        issuer = "http://127.0.0.1:3000"
        token = issue_access_token(issuer=issuer, subject="bench", client_id="bench", tenant="demo",
                                   scope="charges:read").token
        kid = jwt.get_unverified_header(token)["kid"]
        key = default_validator().keys.get(kid, int(time.time()))
        assert key is not None
        audience = issuer + "/charges"
        bare = _per_call_us(lambda: jwt.decode(token, key.key, algorithms=[alg], audience=audience, issuer=issuer), n)
        offline = AccessTokenValidator(KeyCache(lambda: KeyStore().published(), 300), 120)
        no_storage = _per_call_us(lambda: offline.verify(token, issuer=issuer, audience=audience,
                                                         now=int(time.time())), n)
        remembered = _per_call_us(lambda: offline.validate(token, issuer=issuer, audience=audience,
                                                           now=int(time.time())), n)
        event = {"httpMethod": "GET", "path": "/charges", "resource": "/charges",
                 "headers": {"Authorization": f"Bearer {token}"}, "requestContext": {"requestId": "b"}}

        def guarded() -> None:
            require_bearer(Request.from_event(event), "charges:read")

        whole = _per_call_us(guarded, n=max(1, n // 4))
        return {"bare": bare, "no_storage": no_storage, "remembered": remembered, "whole": whole}


def main() -> int:
    print(f"{'alg':6} {'jwt.decode':>12} {'guard (CPU)':>12} {'ratio':>6} {'remembered':>11} "
          f"{'guard + revocation (moto)':>26}")
    for alg in ("RS256", "ES256"):
        m = measure(alg)
        print(f"{alg:6} {m['bare']:10.1f}us {m['no_storage']:10.1f}us {m['no_storage'] / m['bare']:5.2f}x "
              f"{m['remembered']:9.1f}us {m['whole']:24.1f}us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
