"""Access-token signing latency: local backend (key in memory) vs KMS (one Sign call per token).

Against moto, so the KMS figure is the SDK + moto cost without the network round trip real
KMS adds to every token; docs/tokens-and-keys.md's backend choice rests on these figures plus that trip
and KMS's per-account request quota. Run: `python -m bench signing`.
"""

from __future__ import annotations

import time

N = 300


def measure(backend: str, alg: str) -> float:
    from bench.moto_stack import moto_stack

    with moto_stack(AUTHGATE_SIGNING_BACKEND=backend, AUTHGATE_SIGNING_ALG=alg):
        from authgate.tokens.access_token import issue_access_token
        from authgate.tokens.rotation import ensure_keys

        ensure_keys()

        def issue() -> None:
            issue_access_token(issuer="http://127.0.0.1:3000", subject="s", client_id="c", tenant="t",
                               scope="charges:read")

        for _ in range(20):
            issue()
        start = time.perf_counter()
        for _ in range(N):
            issue()
        return (time.perf_counter() - start) / N * 1e3


def main() -> int:
    print(f"{'alg':6} {'local':>10} {'kms (moto)':>12}")
    for alg in ("RS256", "ES256"):
        print(f"{alg:6} {measure('local', alg):8.3f}ms {measure('kms', alg):10.3f}ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
