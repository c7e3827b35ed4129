"""Concurrency (issue 4 item 7): one code, or one refresh token, used by 32 threads at once.

Threads call the token handler in-process against moto made atomic (as real DynamoDB is per
item). Documented outcomes:
- 32 exchanges of one code: exactly one 200; 31 x 400 invalid_grant; and because a second
  exchange revokes every token of the code, the winner's tokens end up revoked too.
- 32 refreshes of one refresh token: at most one 200 (exactly one here); every other request is
  400 invalid_grant; the concurrent reuse revokes the family, so the winner's new refresh token
  is refused afterwards.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.functional.token_support import TokenClient, body_of, new_code

# About 30-40 s each on two shared cores.
pytestmark = pytest.mark.slow
THREADS = 32
ROUNDS = 50


def race(calls: int, fn: Callable[[], dict[str, Any]], pool: ThreadPoolExecutor) -> list[dict[str, Any]]:
    barrier = threading.Barrier(calls)

    def run() -> dict[str, Any]:
        barrier.wait()
        return fn()

    return [f.result() for f in [pool.submit(run) for _ in range(calls)]]


def outcome(results: list[dict[str, Any]]) -> Counter[tuple[int, str]]:
    return Counter((r["statusCode"], body_of(r).get("error", "ok")) for r in results)


def test_concurrent_exchanges_of_one_code_give_exactly_one_token_response(tokens: TokenClient) -> None:
    with ThreadPoolExecutor(THREADS) as pool:
        for _ in range(ROUNDS):
            code = new_code()
            results = race(THREADS, lambda code=code: tokens.exchange(code), pool)
            assert outcome(results) == Counter({(200, "ok"): 1, (400, "invalid_grant"): THREADS - 1})
            (winner,) = [body_of(r) for r in results if r["statusCode"] == 200]
            assert body_of(tokens.introspect(winner["access_token"]))["active"] is False
            assert tokens.refresh(winner["refresh_token"])["statusCode"] == 400


def test_concurrent_refreshes_of_one_token_give_at_most_one_new_token(tokens: TokenClient) -> None:
    with ThreadPoolExecutor(THREADS) as pool:
        for _ in range(ROUNDS):
            start = body_of(tokens.exchange(new_code()))
            results = race(THREADS, lambda start=start: tokens.refresh(start["refresh_token"]), pool)
            counts = outcome(results)
            assert counts[(200, "ok")] <= 1
            assert counts[(400, "invalid_grant")] == THREADS - counts[(200, "ok")]
            assert counts[(200, "ok")] == 1  # with atomic writes one always wins
            (winner,) = [body_of(r) for r in results if r["statusCode"] == 200]
            # The 31 losers were reuse of a rotated token: the whole family is revoked.
            assert body_of(tokens.refresh(winner["refresh_token"]))["error"] == "invalid_grant"
            assert body_of(tokens.introspect(winner["access_token"]))["active"] is False
