"""32 concurrent POSTs with one Idempotency-Key create exactly one charge, round after round."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from tests.demo import body, count_charges, headers

THREADS = 32
ROUNDS = 25


@pytest.fixture
def roomy_limits(monkeypatch):
    """The limiter is not under test here: give the burst room (it still runs, one call each)."""
    from authgate import caches

    for name in ("AUTHGATE_RATE_TENANT", "AUTHGATE_RATE_CLIENT", "AUTHGATE_RATE_IP"):
        monkeypatch.setenv(name, "10000")
    caches.reset()


@pytest.mark.slow
def test_one_key_32_concurrent_posts_one_charge(roomy_limits, demo, invoke):
    payload = {"amount": 2500, "currency": "usd", "description": "concurrent"}
    outcomes: Counter[str] = Counter()
    for round_ in range(ROUNDS):
        key = f"burst-{round_}"
        results: list[dict] = []
        barrier = threading.Barrier(THREADS)

        def attempt(key: str, barrier: threading.Barrier, results: list[dict]) -> None:
            event = demo.event("POST", body=payload, headers={"Idempotency-Key": key})
            barrier.wait()
            results.append(invoke("charges", event))

        threads = [threading.Thread(target=attempt, args=(key, barrier, results)) for _ in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

        assert len(results) == THREADS
        created = [r for r in results if r["statusCode"] == 201 and "idempotent-replayed" not in headers(r)]
        replays = [r for r in results if r["statusCode"] == 201 and headers(r).get("idempotent-replayed") == "true"]
        busy = [r for r in results if r["statusCode"] == 409]
        assert len(created) == 1, [r["statusCode"] for r in results]
        assert len(created) + len(replays) + len(busy) == THREADS
        charge_id = body(created[0])["id"]
        assert all(body(r)["id"] == charge_id for r in replays)
        assert all(body(r)["code"] == "idempotency_request_in_progress" and headers(r)["retry-after"] == "1"
                   for r in busy)
        assert count_charges() == round_ + 1
        outcomes.update(created=1, replayed=len(replays), in_progress=len(busy))
    print(f"\n{ROUNDS} rounds x {THREADS} threads: {dict(outcomes)}")
