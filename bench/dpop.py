"""A DPoP proof check (tokens.dpop.check_proof, RFC 9449 4.3) against a bare ES256 signature verification.

Warm figures: the proof's key is in the checker's key cache, as for a client's second request.
"bare" is cryptography's ECDSA verification of the same proof's signing input with an already
loaded key (tokens.jwa.verify), the least any proof check must do; the proof check adds parsing
both JSON segments, the allow-lists, the key lookup, htm/htu/iat/ath. The jti write is storage,
counted in the per-operation DynamoDB calls instead. Target (issue 13): at most 1.5x.
Run: `python -m bench dpop`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

N = 2000
TARGET = 1.5


def _per_call_us(fn: Callable[[], Any], n: int) -> float:
    for _ in range(50):
        fn()
    best = float("inf")
    for _ in range(3):  # best of three runs: the machine is shared
        start = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - start) / n * 1e6)
    return best


def measure(n: int = N) -> dict[str, Any]:
    from authgate import base64url
    from authgate.tokens import dpop, jwa, jwk
    from bench.operations import DpopClient

    client = DpopClient()
    token = "header.payload.signature-of-an-access-token"
    url = "http://127.0.0.1:3000/charges"
    proof = client.proof("GET", url, token)
    now = int(time.time())
    key = jwk.public_proof_key(client.jwk)
    head, payload, signature = proof.split(".")
    signing_input, raw = f"{head}.{payload}".encode("ascii"), base64url.decode(signature)
    assert jwa.verify("ES256", key, signing_input, raw)
    dpop.check_proof(proof, method="GET", uri=url, now=now, leeway=120, access_token=token)
    bare = _per_call_us(lambda: jwa.verify("ES256", key, signing_input, raw), n)
    checked = _per_call_us(lambda: dpop.check_proof(proof, method="GET", uri=url, now=now, leeway=120,
                                                    access_token=token), n)
    ratio = checked / bare
    return {"bare_es256_verify_us": bare, "proof_check_us": checked, "ratio": ratio, "target_ratio": TARGET,
            "holds": ratio <= TARGET}


def main() -> int:
    m = measure()
    print(f"bare ES256 verify {m['bare_es256_verify_us']:.1f}us, DPoP proof check {m['proof_check_us']:.1f}us, "
          f"ratio {m['ratio']:.2f}x (target <= {TARGET}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
