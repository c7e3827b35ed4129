"""Benchmarks: measured figures, printed, never asserted as timed tests.

`python -m bench` (or `make bench`) runs every registered benchmark; `python -m bench NAME`
runs one. Register a benchmark by adding its module (which exposes `main() -> int`) below.
"""

from __future__ import annotations

REGISTERED: dict[str, str] = {
    "guard": "bench.guard",
    "signing": "bench.signing",
    "charges_calls": "bench.charges_calls",
    "token_endpoint": "bench.token_endpoint",
    "dpop": "bench.dpop",
    "sign_in": "bench.sign_in",
    "second_factors": "bench.second_factors",
    "snapstart": "bench.snapstart",
    "client_metadata": "bench.client_metadata",
    "delegation": "bench.delegation",
    "openid_connect": "bench.openid_connect",
    "ciba": "bench.ciba",
    "audit": "bench.audit",
    "warm_cpu": "bench.warm_cpu",
    "walk": "bench.walk",
    "federated_sign_in": "bench.federated_sign_in",
}
